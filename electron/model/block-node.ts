// What the model remembers about one block, as read out of the forest's columns (node-table.ts).

import type { HashKey } from '../../shared/events';

/** Store/remove times kept per block. */
export const HISTORY_LEN = 8;

/** A copy of one known block's fields (the forest keeps them in columns, not in objects). */
export interface BlockNode {
  readonly hash: HashKey;
  readonly parent: HashKey | null;
  readonly firstStored: number;
  readonly medium: string | null;
  readonly tokens: number;
  readonly timesStored: number;
  /** Times it became resident nowhere (each a removal time, the last HISTORY_LEN kept). */
  readonly timesRemoved: number;
  /** Stores of this block while it was known but resident nowhere (re-stores after eviction). */
  readonly restores: number;
  /** The last HISTORY_LEN store and removal times, oldest first. */
  readonly storedAt: readonly number[];
  readonly removedAt: readonly number[];
  readonly lastStore: number;
  readonly lastSeen: number;
  readonly lastLifetime: number | null;
  /** (source, medium) pairs holding it now. */
  readonly holders: number;
  /** Bit i: source i holds it now / ever stored it (sources 0..30). */
  readonly srcMask: number;
  readonly seenMask: number;
  /** Known blocks naming this one as their parent. */
  readonly children: number;
}

/** The bit of a source index (sources past 30 share no bit: filters by them see nothing). */
export function sourceBit(idx: number): number {
  return idx < 31 ? 1 << idx : 0;
}
