// Cheap derived figures, kept as running counters: reuse, thrash, lifetimes, shared prefixes.

/** Re-stores within this many seconds of the block's removal count as thrash. */
export const DEFAULT_THRASH_WINDOW_SEC = 60;

/** Upper bounds (seconds) of the lifetime histogram buckets; the last bucket is open. */
export const LIFETIME_BOUNDS_SEC = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** What derived() returns. */
export interface DerivedFigures {
  /** BlockStored events that named a parent, and those whose parent was resident in that source. */
  storesWithParent: number;
  reuseStores: number;
  reuseRatio: number | null;
  /** Blocks stored again after eviction, and those within thrashWindowSec of their removal. */
  restores: number;
  thrashRestores: number;
  thrashWindowSec: number;
  /** Histogram of last lifetimes (removal - latest store), counts per LIFETIME_BOUNDS_SEC bucket + 1 open bucket. */
  lifetimeBoundsSec: number[];
  lifetimeCounts: number[];
  lifetimeMeanSec: number | null;
  /** Blocks held by two or more sources right now. */
  sharedBlocks: number;
  knownBlocks: number;
  forgottenBlocks: number;
  eventErrors: number;
}

/** Running counters behind DerivedFigures. */
export class DerivedCounters {
  storesWithParent = 0;
  reuseStores = 0;
  restores = 0;
  thrashRestores = 0;
  sharedBlocks = 0;
  eventErrors = 0;
  readonly lifetimeCounts = new Array<number>(LIFETIME_BOUNDS_SEC.length + 1).fill(0);
  private lifetimeSum = 0;
  private lifetimeN = 0;

  constructor(readonly thrashWindowSec = DEFAULT_THRASH_WINDOW_SEC) {}

  lifetime(sec: number): void {
    let b = LIFETIME_BOUNDS_SEC.findIndex((ub) => sec < ub);
    if (b < 0) b = LIFETIME_BOUNDS_SEC.length;
    this.lifetimeCounts[b] = (this.lifetimeCounts[b] ?? 0) + 1;
    this.lifetimeSum += sec;
    this.lifetimeN += 1;
  }

  restore(ts: number, lastRemoved: number | null): void {
    this.restores += 1;
    if (lastRemoved !== null && ts - lastRemoved <= this.thrashWindowSec) this.thrashRestores += 1;
  }

  snapshot(knownBlocks: number, forgottenBlocks: number): DerivedFigures {
    return {
      storesWithParent: this.storesWithParent,
      reuseStores: this.reuseStores,
      reuseRatio: this.storesWithParent > 0 ? this.reuseStores / this.storesWithParent : null,
      restores: this.restores,
      thrashRestores: this.thrashRestores,
      thrashWindowSec: this.thrashWindowSec,
      lifetimeBoundsSec: [...LIFETIME_BOUNDS_SEC],
      lifetimeCounts: [...this.lifetimeCounts],
      lifetimeMeanSec: this.lifetimeN > 0 ? this.lifetimeSum / this.lifetimeN : null,
      sharedBlocks: this.sharedBlocks,
      knownBlocks,
      forgottenBlocks,
      eventErrors: this.eventErrors,
    };
  }
}

/** Number of set bits. */
export function popcount(x: number): number {
  let n = 0;
  let v = x >>> 0;
  while (v) {
    v &= v - 1;
    n += 1;
  }
  return n;
}
