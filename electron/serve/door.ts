// Who may talk to `kvscope serve`. Two checks on every request and WebSocket upgrade:
// - the Host header must name the address served, so a page of another site whose DNS name
//   rebinds to 127.0.0.1 gets nothing (the browser sends that site's name as Host);
// - off loopback, a token printed at start (in the URL, as Jupyter does; random unless --token
//   gives one) must come with the request: as ?token=, as the cookie the first such request sets,
//   or as `Authorization: Bearer` (a Prometheus scrape of /metrics).

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import os from 'node:os';

/** What the door says about one request. */
export type DoorVerdict =
  | { kind: 'pass'; setCookie: string | null }
  | { kind: 'wrong-host'; status: 421; message: string }
  | { kind: 'no-token'; status: 403; message: string };

export interface Door {
  /** Null on loopback; else what must come with every request. */
  readonly token: string | null;
  /** The URL to print at start (with the token when one is needed). */
  url(port: number): string;
  check(req: IncomingMessage, port: number): DoorVerdict;
}

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const name = unbracket(host).toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || /^::ffff:127\./.test(name);
  return false;
}

/** True for an address that listens on every interface (0.0.0.0, ::). */
export function isWildcardHost(host: string): boolean {
  const name = unbracket(host);
  return name === '0.0.0.0' || name === '::' || name === '';
}

/**
 * The door for a server listening on `host`; the token off loopback is `token`, or random.
 * `scrapeOnly`: a server of /metrics alone (collect), which prints no page URL to open.
 */
export function createDoor(host: string, token?: string, scrapeOnly = false): Door {
  const needsToken = !isLoopbackHost(host);
  const secret = needsToken ? (token ?? randomBytes(24).toString('base64url')) : null;
  const names = allowedNames(host);
  const shown = urlHost(isWildcardHost(host) ? '127.0.0.1' : host);
  const cookieName = (port: number) => `kvscope_token_${port}`;

  return {
    token: secret,
    url: (port) => `http://${shown}:${port}/${secret ? `?token=${secret}` : ''}`,
    check(req, port) {
      const name = hostName(req.headers.host);
      if (name === null || !names.has(name)) {
        return {
          kind: 'wrong-host',
          status: 421,
          message:
            `this server answers only requests addressed to ${[...names].join(', ')} ` +
            `(the Host was ${JSON.stringify(req.headers.host ?? '')}): open the URL it printed at start`,
        };
      }
      if (secret === null) return { kind: 'pass', setCookie: null };
      const given = new URL(req.url ?? '/', 'http://x').searchParams.get('token');
      if (given !== null && same(given, secret)) {
        // The page's own later requests (scripts, the socket, downloads) carry the cookie instead.
        const cookie = `${cookieName(port)}=${secret}; Path=/; HttpOnly; SameSite=Strict`;
        return { kind: 'pass', setCookie: cookie };
      }
      const fromCookie = readCookie(req.headers.cookie, cookieName(port));
      if (fromCookie !== null && same(fromCookie, secret)) return { kind: 'pass', setCookie: null };
      // A scraper of /metrics or a script sends it as a bearer token.
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (bearer !== undefined && same(bearer, secret)) return { kind: 'pass', setCookie: null };
      // A token that came and is not this one is mostly a stale one: the cookie or URL of a KV
      // Scope started before (a random token is new at every start).
      const stale = given !== null || fromCookie !== null || bearer !== undefined;
      const what = stale
        ? "the token given is not this KV Scope's (each start makes a new one unless --token names it)"
        : 'this KV Scope listens beyond loopback and needs its token';
      const how = scrapeOnly
        ? 'send `Authorization: Bearer <token>` with the token it printed at start'
        : 'open the URL with ?token=... that it printed at start (a scraper or script sends `Authorization: Bearer <token>`)';
      return { kind: 'no-token', status: 403, message: `${what}: ${how}` };
    },
  };
}

/** Host names (lowercase, IPv6 in brackets) a request may be addressed to. */
function allowedNames(host: string): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (isWildcardHost(host)) {
    // Every interface listens: the machine's own addresses and name are the address served.
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) names.add(urlHost(a.address.replace(/%.*$/, '')));
    }
  } else {
    names.add(urlHost(host).toLowerCase());
  }
  return names;
}

/** The name part of a Host header, lowercase, IPv6 in brackets; null when it is malformed. */
function hostName(header: string | undefined): string | null {
  // A plain host[:port]: anything with a path, a user or spaces is refused outright.
  if (!header || /[/?#@\\\s]/.test(header)) return null;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return null;
  }
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function urlHost(host: string): string {
  const name = unbracket(host);
  return isIP(name) === 6 ? `[${name}]` : name;
}
