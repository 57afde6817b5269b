// Waiting on a signal in tests: poll a condition or a value, never sleep a fixed time.

/** Resolves when `cond` holds; rejects naming `what` after `timeoutMs`. */
export async function waitFor(
  cond: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Polls `read` until `ok` holds (a signal, not a sleep) and returns the value; usable in hooks,
 * where expect.poll is not. Fails with the last value seen.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeout = 20_000,
): Promise<T> {
  const until = Date.now() + timeout;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
