// One known block of the hash forest. A class so that V8 gives every node one compact shape.

import type { HashKey } from '../../shared/events';

/** Store/remove times kept per block. */
export const HISTORY_LEN = 8;

const NO_TIMES: readonly number[] = Object.freeze([]);

/** What the model remembers about one block hash. */
export class BlockNode {
  timesStored = 0;
  /** Stores of this block while it was known but resident nowhere (re-stores after eviction). */
  restores = 0;
  storedAt: readonly number[] = NO_TIMES;
  removedAt: readonly number[] = NO_TIMES;
  lastStore = 0;
  lastSeen: number;
  lastLifetime: number | null = null;
  /** (source, medium) pairs holding it now. */
  holders = 0;
  /** Bit i: source i holds it now / ever stored it (sources 0..30). */
  srcMask = 0;
  seenMask = 0;
  /** Position in the forest's evicted queue (0 while resident somewhere). */
  evictStamp = 0;
  /** Known blocks naming this one as their parent. */
  children = 0;

  constructor(
    readonly hash: HashKey,
    public parent: HashKey | null,
    readonly firstStored: number,
    public medium: string | null,
    public tokens: number,
  ) {
    this.lastSeen = firstStored;
  }
}

/**
 * A bounded history list with v appended. Copies into an exact-size array: push() would grow a
 * small array to 17 slots, which across 300k blocks is most of the model's memory.
 */
export function appendBounded(list: readonly number[], v: number): number[] {
  const keep = Math.min(list.length, HISTORY_LEN - 1);
  const out = new Array<number>(keep + 1);
  for (let i = 0; i < keep; i += 1) out[i] = list[list.length - keep + i] as number;
  out[keep] = v;
  return out;
}

/** The bit of a source index (sources past 30 share no bit: filters by them see nothing). */
export function sourceBit(idx: number): number {
  return idx < 31 ? 1 << idx : 0;
}
