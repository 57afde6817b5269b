// Held chain lists. Chains reorder with every block, so a Chains view names itself in its queries
// and the service keeps, per view, the chains its latest live pages came from. Held (paused,
// scrolled down, a row open or under the keyboard), the view pages, sorts and filters by source
// or residency the rows it showed while the forest moves on: every row of the held list can be
// scrolled to, and none moves. The two latest are kept: a live page answered as the view held its
// list never reaches its screen, which still shows the one before. Bounded: a few views at once,
// each forgotten after a while unused (its rows are whole generations of chain summaries).

import type { ChainRow } from './chains';

/** Views kept at once; one more forgets the least recently used. */
export const MAX_CHAIN_VIEWS = 8;
/** A view unused this long is forgotten (held again, it holds the chains as they are then). */
export const CHAIN_VIEW_IDLE_MS = 10 * 60_000;

/** The rows of one computation of the chains, for one hash filter. */
export interface ChainGeneration {
  /** The forest's version the rows were computed at. */
  version: number;
  /** The hash filter the rows' match marks are for. */
  hash: string;
  rows: ChainRow[];
}

interface Kept {
  latest: ChainGeneration;
  /** The generation before latest (of another version), if any. */
  before: ChainGeneration | null;
  usedAt: number;
}

/** Per view, the generations of its two latest live pages. */
export class ChainViews {
  /** In order of last use, oldest first (a use moves an entry to the end). */
  private readonly kept = new Map<string, Kept>();

  // Not readonly: a state snapshot leaves functions out (reattach).
  constructor(private now: () => number = Date.now) {}

  /** After a state snapshot is read: its clock. */
  reattach(now: () => number): void {
    this.now = now;
  }

  /** Views kept now. */
  get size(): number {
    return this.kept.size;
  }

  /**
   * The generation of view's live page of `version` (the one on its screen) when it is one of the
   * two latest, else of its latest, marked as used; undefined once the view is forgotten.
   */
  get(view: string, version?: number): ChainGeneration | undefined {
    this.expire();
    const k = this.kept.get(view);
    if (k === undefined) return undefined;
    k.usedAt = this.now();
    this.kept.delete(view);
    this.kept.set(view, k);
    return k.before !== null && k.before.version === version ? k.before : k.latest;
  }

  /** Notes the generation view's latest page came from. */
  set(view: string, generation: ChainGeneration): void {
    const k = this.kept.get(view);
    this.kept.delete(view);
    this.expire();
    while (this.kept.size >= MAX_CHAIN_VIEWS)
      this.kept.delete(this.kept.keys().next().value as string);
    const before = k === undefined || k.latest === generation ? (k?.before ?? null) : k.latest;
    this.kept.set(view, { latest: generation, before, usedAt: this.now() });
  }

  private expire(): void {
    const stale = this.now() - CHAIN_VIEW_IDLE_MS;
    for (const [view, k] of this.kept) {
      if (k.usedAt > stale) break;
      this.kept.delete(view);
    }
  }
}
