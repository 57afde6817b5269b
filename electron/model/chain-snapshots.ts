// Held chain lists. Chains reorder with every block, so a list paused (or scrolled down) keeps the
// rows of one computation of the chains, as they were, and pages, sorts and filters those by
// source or residency while the forest moves on: any row of it can be scrolled to. Bounded: the
// fewest held lists a few screens need, each dropped after a while unused (its rows are a whole
// generation of chain summaries kept alive).

import type { ChainRow } from './chains';

/** Held lists kept at once; asking for one more drops the least recently used. */
export const MAX_CHAIN_SNAPSHOTS = 4;
/** A held list unused this long is dropped (asked for again, it is made anew from the chains now). */
export const CHAIN_SNAPSHOT_IDLE_MS = 10 * 60_000;

/** The rows of one computation of the chains (for one hash filter) and when they were computed. */
export interface ChainGeneration {
  /** The forest's version the rows were computed at. */
  version: number;
  /** The hash filter the rows' match marks are for. */
  hash: string;
  rows: ChainRow[];
}

interface Held extends ChainGeneration {
  usedAt: number;
}

export class ChainSnapshots {
  private next = 1;
  /** In order of last use, oldest first (a use moves an entry to the end). */
  private readonly held = new Map<number, Held>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Held lists kept now. */
  get size(): number {
    return this.held.size;
  }

  /** Whether the list `id` is still held (not dropped for age or for room). */
  has(id: number): boolean {
    this.expire();
    return this.held.has(id);
  }

  /** The held list `id`, marked as used; undefined once dropped. */
  get(id: number): ChainGeneration | undefined {
    this.expire();
    const h = this.held.get(id);
    if (h === undefined) return undefined;
    h.usedAt = this.now();
    this.held.delete(id);
    this.held.set(id, h);
    return h;
  }

  /** Holds `generation` as a new list (in place of `replacing`, when given); returns its id. */
  hold(generation: ChainGeneration, replacing?: number): number {
    if (replacing !== undefined) this.held.delete(replacing);
    this.expire();
    while (this.held.size >= MAX_CHAIN_SNAPSHOTS) {
      const oldest = this.held.keys().next().value as number;
      this.held.delete(oldest);
    }
    const id = this.next++;
    this.held.set(id, { ...generation, usedAt: this.now() });
    return id;
  }

  private expire(): void {
    const stale = this.now() - CHAIN_SNAPSHOT_IDLE_MS;
    for (const [id, h] of this.held) {
      if (h.usedAt > stale) break;
      this.held.delete(id);
    }
  }
}
