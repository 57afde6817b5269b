// Waiting on a signal in tests: poll a condition, never sleep a fixed time.

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
