// G of one (source, medium): hashes removed from R and not stored since, oldest first. The newest
// `exactCap` entries are held exactly (their ghost distances are exact); what falls off the old
// end is kept only when its hash is sampled (SHARDS: hash < threshold), in a bounded tail whose
// rate halves when it fills. A re-store found in the tail counts 1/rate re-stores, at an
// estimated distance, and marks the list as an estimate. Entries are the interner's ids, each
// holding a ghost reference on its id while it is in the list (exact part or tail).

import type { DecimalParts } from '../collections/hash-ids';
import { GhostOrder } from './ghost-order';
import type { GhostIds } from './holdings';

/** G is exact up to this many entries per (source, medium). */
export const GHOST_EXACT_CAP = 1_048_576;
/** Sampled entries kept past the exact bound. */
export const GHOST_TAIL_CAP = 65_536;

const FULL_RATE = 2 ** 32;

/** A re-store found in G. */
export interface GhostHit {
  /** G entries newer than it (estimated for a tail hit). */
  distance: number;
  removedAt: number;
  /** How many re-stores it stands for: 1, or 1/rate for a sampled tail hit. */
  weight: number;
}

/** A 32-bit spatial hash of a hash key (FNV-1a, then murmur3's finalizer to spread short keys). */
export function sampleHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return finish(h);
}

/**
 * sampleHash of a canonical decimal key from its parts (hash-ids.ts), digit by digit without
 * making its text: a full G spills an entry per removal, and a string per spill was garbage that
 * lived long enough to reach the old generation.
 */
export function sampleHashOfParts(hi: number, lo: number): number {
  let h = 0x811c9dc5;
  if (hi === 0) h = fnvDigits(h, lo, digitCount(lo));
  else {
    h = fnvDigits(h, hi, digitCount(hi));
    h = fnvDigits(h, lo, 10);
  }
  return finish(h);
}

/** FNV-1a over the d decimal digits of n (an integer below 10^10, zero-padded to d). */
function fnvDigits(h: number, n: number, d: number): number {
  for (let p = 10 ** (d - 1); p >= 1; p /= 10)
    h = Math.imul(h ^ (48 + (Math.floor(n / p) % 10)), 0x01000193);
  return h;
}

function digitCount(n: number): number {
  let d = 1;
  for (let p = 10; p <= n; p *= 10) d += 1;
  return d;
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The ghost list of one (source, medium). */
export class GhostList {
  private readonly window: GhostOrder;
  private tail: GhostOrder | null = null;
  /** Sampled when sampleHash(key) < threshold; the rate is threshold / 2^32. */
  private threshold = FULL_RATE / 64;
  private spilled = false;
  private readonly parts: DecimalParts = { hi: 0, lo: 0 };

  constructor(
    private readonly ids: GhostIds,
    private readonly exactCap = GHOST_EXACT_CAP,
    private readonly tailCap = GHOST_TAIL_CAP,
  ) {
    this.window = new GhostOrder(exactCap, ids);
  }

  /** True once entries fell past the exact bound (distances and re-stores are then estimates). */
  get estimate(): boolean {
    return this.spilled;
  }

  /** Entries now (the tail scaled by its rate). */
  get size(): number {
    return this.window.size + Math.round((this.tail?.size ?? 0) / this.rate());
  }

  /** Bytes of its exact part and its sampled tail (for the memory figures). */
  bytes(): number {
    return this.window.bytes() + (this.tail?.bytes() ?? 0);
  }

  /** A removal from R: the hash (id) goes to the newest end; the caller knows it is not in G. */
  add(id: number, removedAt: number): void {
    if (this.window.size >= this.exactCap) this.spill();
    this.window.push(id, removedAt);
    this.ids.ghostIn(id);
  }

  /**
   * A new store of the hash with id: when it is in G it leaves it, and its distance is returned.
   * The caller keeps the id (a holder) first, or leaving G may recycle it.
   */
  restore(id: number): GhostHit | null {
    // Most new stores are of hashes in no G at all: one array read, no lookup.
    if (!this.ids.inGhosts(id)) return null;
    const exact = this.window.take(id);
    if (exact) {
      this.ids.ghostOut(id);
      return { distance: exact.newer, removedAt: exact.removedAt, weight: 1 };
    }
    if (this.tail === null || this.sampleOf(id) >= this.threshold) return null;
    const t = this.tail.take(id);
    if (!t) return null;
    this.ids.ghostOut(id);
    const rate = this.rate();
    return {
      distance: this.window.size + Math.round(t.newer / rate),
      removedAt: t.removedAt,
      weight: 1 / rate,
    };
  }

  /** AllBlocksCleared or a publisher restart: G starts again (the estimate flag stays). */
  clear(): void {
    const out = (id: number): void => this.ids.ghostOut(id);
    this.window.forEachId(out);
    this.tail?.forEachId(out);
    this.window.clear();
    this.tail = null;
  }

  private rate(): number {
    return this.threshold / FULL_RATE;
  }

  /** Moves the oldest exact entry to the sampled tail (or drops it when its hash is not sampled). */
  private spill(): void {
    const old = this.window.popOldest();
    if (!old) return;
    this.spilled = true;
    const ids = this.ids;
    if (this.sampleOf(old.id) >= this.threshold) {
      ids.ghostOut(old.id);
      return;
    }
    // Sampled: the entry moves to the tail with its ghost reference.
    const tail = (this.tail ??= new GhostOrder(this.tailCap, this.ids));
    tail.push(old.id, old.removedAt);
    if (tail.size <= this.tailCap) return;
    // Full: halve the rate and keep only what is still sampled (fixed-size SHARDS).
    this.threshold /= 2;
    for (const id of [...tail.entries()])
      if (this.sampleOf(id) >= this.threshold) {
        tail.delete(id);
        ids.ghostOut(id);
      }
  }

  /** sampleHash of id's key, from its parts when it is a decimal (no string made). */
  private sampleOf(id: number): number {
    const p = this.parts;
    return this.ids.keyParts(id, p)
      ? sampleHashOfParts(p.hi, p.lo)
      : sampleHash(this.ids.keyOf(id));
  }
}
