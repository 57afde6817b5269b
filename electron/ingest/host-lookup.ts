// A host name DNS does not know, said as such: a source that never connected to one, and an engine
// metrics URL that cannot be read, name the host rather than the generic "is the engine running".

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Whether an error code is a failed name lookup: the name is unknown, or DNS could not answer. */
export function isHostNotFound(code: unknown): code is 'ENOTFOUND' | 'EAI_AGAIN' {
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

/** What to tell the user of a host name that does not resolve (code: the lookup's). */
export function hostNotFoundText(host: string, code: string): string {
  return `the host name "${host}" does not resolve (${code}): check its spelling, or give the engine machine's IP address`;
}

/** The host of a tcp:// endpoint when it is a name to look up (not an IP literal or *), else null. */
export function endpointHostName(endpoint: string): string | null {
  const host = /^tcp:\/\/([^\s:/[\]]+):/.exec(endpoint.trim())?.[1];
  if (host === undefined || host === '*' || isIP(host) !== 0) return null;
  return host;
}

/** Looks host up: the code when it does not resolve (ENOTFOUND, EAI_AGAIN), else null. */
export async function hostNotFoundCode(host: string): Promise<string | null> {
  try {
    await lookup(host);
    return null;
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    return isHostNotFound(code) ? code : null;
  }
}
