// Starting a multi-rank simulator where a connection profile can reach it: rank r on base + r
// (PUB) and base + dp + r (replay), as a data-parallel engine publishes. The base is random, and
// another is tried when a port of the range is taken, so two apps (or test runs) never collide.
import { SimPublisher } from './publisher';
import type { SimOptions } from './types';

const LOW = 20_000;
const HIGH = 60_000;
const TRIES = 12;

/**
 * Starts the simulator with every rank's ports consecutive: from `base` when one is given (> 0),
 * else from a random base, trying another while a port of the range is taken.
 */
export async function startOnConsecutivePorts(
  opts: Omit<SimOptions, 'port' | 'replay'> & { replay: boolean },
  base = 0,
): Promise<SimPublisher> {
  const dp = opts.dp ?? 1;
  const startAt = (port: number) =>
    SimPublisher.start({ ...opts, port, replay: opts.replay ? port + dp : false });
  if (base > 0) {
    const lastPort = base + (opts.replay ? 2 * dp : dp) - 1;
    if (lastPort > 65535)
      throw new Error(`the demo needs ports ${base} to ${lastPort}: pass a lower --demo-port`);
    try {
      return await startAt(base);
    } catch (e) {
      throw new Error(
        `the demo's ports ${base} to ${lastPort} are not all free (${e instanceof Error ? e.message : String(e)}): pass another --demo-port, or 0 to pick free ones`,
      );
    }
  }
  let last: unknown = null;
  for (let i = 0; i < TRIES; i++) {
    try {
      return await startAt(LOW + Math.floor(Math.random() * (HIGH - LOW - 2 * dp)));
    } catch (e) {
      last = e;
    }
  }
  throw new Error(
    `could not find ${2 * dp} free consecutive ports for the simulator after ${TRIES} tries (${last instanceof Error ? last.message : String(last)})`,
  );
}
