// Starting a multi-rank simulator where a connection profile can reach it: rank r on base + r
// (PUB) and base + dp + r (replay), as a data-parallel engine publishes. The base is random, and
// another is tried when a port of the range is taken, so two apps (or test runs) never collide.
import { SimPublisher } from './publisher';
import type { SimOptions } from './types';

const LOW = 20_000;
const HIGH = 60_000;
const TRIES = 12;

/** Starts the simulator on a random base port with every rank's ports consecutive. */
export async function startOnConsecutivePorts(
  opts: Omit<SimOptions, 'port' | 'replay'> & { replay: boolean },
): Promise<SimPublisher> {
  const dp = opts.dp ?? 1;
  let last: unknown = null;
  for (let i = 0; i < TRIES; i++) {
    const base = LOW + Math.floor(Math.random() * (HIGH - LOW - 2 * dp));
    try {
      return await SimPublisher.start({
        ...opts,
        port: base,
        replay: opts.replay ? base + dp : false,
      });
    } catch (e) {
      last = e;
    }
  }
  throw new Error(
    `could not find ${2 * dp} free consecutive ports for the simulator after ${TRIES} tries (${last instanceof Error ? last.message : String(last)})`,
  );
}
