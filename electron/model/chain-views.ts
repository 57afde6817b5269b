// Held chain lists. Chains reorder with every block, so a Chains view names itself in its queries
// and the service keeps, per view, the chains its latest live page came from. Held (paused,
// scrolled down, a row open or under the keyboard), the view pages, sorts and filters by source
// or residency those same rows while the forest moves on: every row of the held list can be
// scrolled to, and none moves. Bounded: a few views at once, each forgotten after a while unused
// (its rows are a whole generation of chain summaries kept alive).

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
  generation: ChainGeneration;
  usedAt: number;
}

/** Per view, the generation of its latest live page. */
export class ChainViews {
  /** In order of last use, oldest first (a use moves an entry to the end). */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Views kept now. */
  get size(): number {
    return this.kept.size;
  }

  /** The generation of view's latest live page, marked as used; undefined once forgotten. */
  get(view: string): ChainGeneration | undefined {
    this.expire();
    const k = this.kept.get(view);
    if (k === undefined) return undefined;
    k.usedAt = this.now();
    this.kept.delete(view);
    this.kept.set(view, k);
    return k.generation;
  }

  /** Notes the generation view's latest page came from. */
  set(view: string, generation: ChainGeneration): void {
    this.kept.delete(view);
    this.expire();
    while (this.kept.size >= MAX_CHAIN_VIEWS)
      this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(view, { generation, usedAt: this.now() });
  }

  private expire(): void {
    const stale = this.now() - CHAIN_VIEW_IDLE_MS;
    for (const [view, k] of this.kept) {
      if (k.usedAt > stale) break;
      this.kept.delete(view);
    }
  }
}
