// Which blocks are resident right now, per source and per medium. A store of a block that is
// already resident there does not count twice; a removal of one that is not changes nothing.
// Keyed by whatever names a block uniquely: the model uses its forest's nodes (an object key
// hashes by identity, so a lookup compares no hash text), the tally the hash keys themselves.

import type { HashKey } from '../../shared/events';

// One name for an event without a medium, shared with the analysis.
export { UNSPECIFIED_MEDIUM } from '../../shared/events';

/** A running count of resident blocks. */
export interface Count {
  n: number;
}

/**
 * The resident set of one (source, medium) with the counts it feeds: taken once per event, so a
 * block's store or removal costs one set operation and no map lookup.
 */
export class ResidentSlot<K> {
  /** The resident keys (replaced, not emptied, by takeAll). */
  set = new Set<K>();

  constructor(
    private readonly total: Count,
    private readonly ofSource: Count,
    private readonly ofMedium: Count,
  ) {}

  /** Marks key resident; true when it was not already. */
  add(key: K): boolean {
    const before = this.set.size;
    this.set.add(key);
    if (this.set.size === before) return false;
    this.bump(1);
    return true;
  }

  /** Bytes it holds, about (a Set entry is some 20 bytes in V8: for the memory figures). */
  bytes(): number {
    return 20 * this.set.size;
  }

  /** Removes key; true when it was resident. */
  delete(key: K): boolean {
    if (!this.set.delete(key)) return false;
    this.bump(-1);
    return true;
  }

  /** Whether key is resident here. */
  has(key: K): boolean {
    return this.set.has(key);
  }

  /** Resident keys. */
  get size(): number {
    return this.set.size;
  }

  /** Empties the slot; returns what was resident, in the order it became resident. */
  takeAll(): Iterable<K> {
    const all = this.set;
    this.bump(-all.size);
    this.set = new Set();
    return all;
  }

  protected bump(d: number): void {
    this.total.n += d;
    this.ofSource.n += d;
    this.ofMedium.n += d;
  }
}

/** Makes the slot of a (source, medium): its counts, and how many slots were made before it. */
export type SlotMaker<K> = (
  total: Count,
  ofSource: Count,
  ofMedium: Count,
  index: number,
) => ResidentSlot<K>;

/** Distinct resident blocks per (source, medium), with running totals. */
export class Residency<K = HashKey> {
  private slotsMade = 0;

  constructor(
    // Not readonly: a state snapshot leaves functions out (reattach).
    private makeSlot: SlotMaker<K> = (total, ofSource, ofMedium) =>
      new ResidentSlot<K>(total, ofSource, ofMedium),
  ) {}

  /** After a state snapshot is read: how its new slots are made. */
  reattach(makeSlot: SlotMaker<K>): void {
    this.makeSlot = makeSlot;
  }

  private readonly bySource = new Map<string, Map<string, ResidentSlot<K>>>();
  private readonly perMedium = new Map<string, Count>();
  private readonly perSource = new Map<string, Count>();
  private readonly totalCount: Count = { n: 0 };

  /** The resident set of (source, medium), created empty when new. */
  slot(source: string, medium: string): ResidentSlot<K> {
    let media = this.bySource.get(source);
    if (!media) {
      media = new Map();
      this.bySource.set(source, media);
    }
    let slot = media.get(medium);
    if (!slot) {
      slot = this.makeSlot(
        this.totalCount,
        countOf(this.perSource, source),
        countOf(this.perMedium, medium),
        this.slotsMade,
      );
      this.slotsMade += 1;
      media.set(medium, slot);
    }
    return slot;
  }

  /** Bytes of every resident set (for the memory figures). */
  bytes(): number {
    let n = 0;
    for (const media of this.bySource.values())
      for (const slot of media.values()) n += slot.bytes();
    return n;
  }

  /** Mark key resident in (source, medium); true when it was not already. */
  store(source: string, medium: string, key: K): boolean {
    return this.slot(source, medium).add(key);
  }

  /** Remove key from (source, medium); true when it was resident there. */
  remove(source: string, medium: string, key: K): boolean {
    return this.bySource.get(source)?.get(medium)?.delete(key) ?? false;
  }

  /** Empty every medium of a source; returns the blocks that were resident (per medium). */
  clear(source: string): Map<string, Iterable<K>> {
    const out = new Map<string, Iterable<K>>();
    for (const [medium, slot] of this.bySource.get(source) ?? []) out.set(medium, slot.takeAll());
    return out;
  }

  /** Whether key is resident in any medium of source. */
  inSource(source: string, key: K): boolean {
    const media = this.bySource.get(source);
    if (!media) return false;
    for (const slot of media.values()) if (slot.has(key)) return true;
    return false;
  }

  total(): number {
    return this.totalCount.n;
  }

  ofSource(source: string): number {
    return this.perSource.get(source)?.n ?? 0;
  }

  /** Resident blocks of one source on one medium. */
  ofSourceMedium(source: string, medium: string): number {
    return this.bySource.get(source)?.get(medium)?.size ?? 0;
  }

  ofMedium(medium: string): number {
    return this.perMedium.get(medium)?.n ?? 0;
  }
}

function countOf(counts: Map<string, Count>, key: string): Count {
  let c = counts.get(key);
  if (!c) {
    c = { n: 0 };
    counts.set(key, c);
  }
  return c;
}
