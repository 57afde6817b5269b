// The browser mode's door, over real HTTP and real WebSockets: a request addressed to another
// name (DNS rebinding) gets nothing on any route or the socket; off loopback, nothing passes
// without the token printed at start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isLoopbackHost, isWildcardHost } from '../../electron/serve/door';
import { startHttpHost, type HttpHost } from '../../electron/serve/http-host';
import { KvScopeService } from '../../electron/service/service';
import { linkInThread } from '../support/in-thread-host';
import { HTTP_ROUTES, WS_PATH } from '../../shared/ws-protocol';

let dir: string;
let service: KvScopeService;
let loopback: HttpHost;
let everywhere: HttpHost;
const TOKEN = 'test-token-0123456789abcdef';

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-door-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>KV Scope</title>');
  service = await KvScopeService.start({
    dataDir: path.join(dir, 'data'),
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
  });
  const common = {
    service: linkInThread(service),
    rendererDir: dir,
    port: 0,
    dataDir: path.join(dir, 'data'),
  };
  loopback = await startHttpHost({ ...common, host: '127.0.0.1' });
  everywhere = await startHttpHost({ ...common, host: '0.0.0.0', token: TOKEN });
});

afterAll(async () => {
  await loopback?.close();
  await everywhere?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request to 127.0.0.1:port with the headers given (Host included). */
function send(
  port: number,
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // No Host at all when none is given: the client would otherwise add its own.
    const setHost = headers.Host !== undefined;
    const options = { host: '127.0.0.1', port, method, path: route, headers, setHost };
    const req = request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a socket to 127.0.0.1:port with the headers given; resolves 'open' or the refusal status. */
function openSocket(port: number, headers: Record<string, string>, query = ''): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}${query}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(String(res.statusCode));
      res.resume();
    });
    ws.once('error', () => resolve('error'));
  });
}

const ROUTES: { method: string; route: string; body?: string }[] = [
  { method: 'GET', route: '/' },
  { method: 'GET', route: '/index.html' },
  { method: 'HEAD', route: '/' },
  { method: 'GET', route: HTTP_ROUTES.saveSession },
  { method: 'GET', route: HTTP_ROUTES.ratesCsv },
  { method: 'POST', route: `${HTTP_ROUTES.openSession}?name=x.gz`, body: 'x\n' },
  { method: 'POST', route: `${HTTP_ROUTES.importCapture}?name=x.jsonl`, body: 'x\n' },
  { method: 'DELETE', route: '/' },
];

describe('the door of kvscope serve', () => {
  it.each(ROUTES)(
    'refuses $method $route addressed to another site',
    async ({ method, route, body }) => {
      const port = loopback.port;
      for (const host of [
        `evil.example:${port}`,
        'evil.example',
        `127.0.0.1.evil.example:${port}`,
      ]) {
        const answer = await send(
          port,
          method,
          route,
          { Host: host, Origin: `http://${host}` },
          body,
        );
        expect(answer.status).toBe(421);
        expect(answer.headers['content-type']).toBe('application/json');
        if (method !== 'HEAD') {
          // The reason alone: a refused download or scrape is not said to be an upload.
          const refusal = JSON.parse(answer.body) as Record<string, unknown>;
          expect(Object.keys(refusal)).toEqual(['error']);
          expect(refusal.error).toMatch(/answers only requests addressed to/);
        }
        expect(answer.body).not.toContain('kvscope-session');
      }
    },
  );

  it('refuses a request without a Host or with a Host that is no plain name', async () => {
    const port = loopback.port;
    // Node answers a request without a Host 400 before the door sees it: either way, nothing.
    const none = await send(port, 'GET', HTTP_ROUTES.ratesCsv, {});
    expect([400, 421]).toContain(none.status);
    for (const host of [
      `127.0.0.1:${port}@evil.example`,
      'evil.example/x',
      `localhost:${port} x`,
    ]) {
      const answer = await send(port, 'GET', HTTP_ROUTES.ratesCsv, { Host: host });
      expect(answer.status).toBe(421);
    }
  });

  it('answers the names of the address it serves, on every route', async () => {
    const port = loopback.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const page = await send(port, 'GET', '/', { Host: host });
      expect(page.status).toBe(200);
      expect(page.body).toContain('KV Scope');
      const csv = await send(port, 'GET', HTTP_ROUTES.ratesCsv, { Host: host });
      expect(csv.body).toMatch(/^time_s,/);
      const download = await send(port, 'GET', HTTP_ROUTES.saveSession, { Host: host });
      expect(download.status).toBe(200);
      expect(download.headers['content-type']).toBe('application/gzip');
    }
  });

  it('refuses a WebSocket upgrade addressed to another site, even with a matching Origin', async () => {
    const port = loopback.port;
    const host = `evil.example:${port}`;
    expect(await openSocket(port, { Host: host, Origin: `http://${host}` })).toBe('421');
    expect(await openSocket(port, { Origin: `http://127.0.0.1:${port}` })).toBe('open');
  });

  it('does not save a profile sent over a socket addressed to another site', async () => {
    const port = loopback.port;
    const host = `evil.example:${port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, {
      headers: { Host: host, Origin: `http://${host}` },
    });
    const outcome = await new Promise<string>((resolve) => {
      ws.once('open', () => resolve('open'));
      ws.once('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.once('error', () => resolve('error'));
    });
    expect(outcome).toBe('421');
    expect(service.listProfiles()).toEqual([]);
  });

  it('tells loopback addresses from the others', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.1.2.3',
      '192.168.0.5',
      'gpu-box',
      'example.com',
      '::2',
    ])
      expect(isLoopbackHost(host)).toBe(false);
    expect(isWildcardHost('0.0.0.0')).toBe(true);
    expect(isWildcardHost('::')).toBe(true);
    expect(isWildcardHost('127.0.0.1')).toBe(false);
  });

  it('asks no token on loopback', () => {
    expect(loopback.token).toBeNull();
    expect(loopback.url).toBe(`http://127.0.0.1:${loopback.port}/`);
  });

  it('off loopback, prints the token in its URL and refuses every route without it', async () => {
    const port = everywhere.port;
    expect(everywhere.token).toBe(TOKEN);
    expect(everywhere.url).toBe(`http://127.0.0.1:${port}/?token=${TOKEN}`);
    const host = `127.0.0.1:${port}`;
    for (const { method, route, body } of ROUTES) {
      const bare = await send(port, method, route, { Host: host }, body);
      expect(bare.status).toBe(403);
      if (method !== 'HEAD') expect(bare.body).toMatch(/needs its token/);
      const joiner = route.includes('?') ? '&' : '?';
      const wrong = await send(port, method, `${route}${joiner}token=guess`, { Host: host }, body);
      expect(wrong.status).toBe(403);
      const badCookie = await send(port, method, route, {
        Host: host,
        Cookie: `kvscope_token_${port}=guess`,
      });
      expect(badCookie.status).toBe(403);
      // A token that is not this one (a stale cookie of an earlier start) is told apart from none.
      if (method !== 'HEAD') {
        expect(bare.body).not.toMatch(/not this KV Scope's/);
        expect(wrong.body).toMatch(/token given is not this KV Scope's/);
        expect(badCookie.body).toMatch(/token given is not this KV Scope's/);
      }
    }
  });

  it('off loopback, lets the token in and sets the cookie the page uses afterwards', async () => {
    const port = everywhere.port;
    const host = `127.0.0.1:${port}`;
    const page = await send(port, 'GET', `/?token=${TOKEN}`, { Host: host });
    expect(page.status).toBe(200);
    expect(page.body).toContain('KV Scope');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const cookie = page.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(new RegExp(`^kvscope_token_${port}=${TOKEN};.*HttpOnly`));
    const sent = cookie.split(';')[0] ?? '';
    const csv = await send(port, 'GET', HTTP_ROUTES.ratesCsv, { Host: host, Cookie: sent });
    expect(csv.status).toBe(200);
    expect(csv.body).toMatch(/^time_s,/);
    // A scraper or a script sends it as a bearer token.
    const bearer = await send(port, 'GET', HTTP_ROUTES.ratesCsv, {
      Host: host,
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(bearer.status).toBe(200);
    const wrongBearer = await send(port, 'GET', HTTP_ROUTES.ratesCsv, {
      Host: host,
      Authorization: 'Bearer guess',
    });
    expect(wrongBearer.status).toBe(403);
    // The token does not lift the Host check: a rebinding page cannot know it, but still.
    const foreign = await send(port, 'GET', `/?token=${TOKEN}`, { Host: `evil.example:${port}` });
    expect(foreign.status).toBe(421);
  });

  it('off loopback, opens the socket only with the token (the cookie or ?token=)', async () => {
    const port = everywhere.port;
    const origin = { Origin: `http://127.0.0.1:${port}` };
    expect(await openSocket(port, origin)).toBe('403');
    expect(await openSocket(port, origin, '?token=guess')).toBe('403');
    expect(await openSocket(port, { ...origin, Cookie: `kvscope_token_${port}=${TOKEN}` })).toBe(
      'open',
    );
    expect(await openSocket(port, origin, `?token=${TOKEN}`)).toBe('open');
  });
});
