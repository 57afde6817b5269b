// One known block of the hash forest. A class so that V8 gives every node one compact shape.

import type { HashKey } from '../../shared/events';

/** Store/remove times kept per block. */
export const HISTORY_LEN = 8;

/** What the model remembers about one block hash. */
export class BlockNode {
  timesStored = 0;
  /** Stores of this block while it was known but resident nowhere (re-stores after eviction). */
  restores = 0;
  storedAt: number[] = [];
  removedAt: number[] = [];
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

/** Push onto a bounded history list. */
export function pushBounded(list: number[], v: number): void {
  list.push(v);
  if (list.length > HISTORY_LEN) list.shift();
}

/** The bit of a source index (sources past 30 share no bit: filters by them see nothing). */
export function sourceBit(idx: number): number {
  return idx < 31 ? 1 << idx : 0;
}
