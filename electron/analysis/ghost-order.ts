// Hash ids in removal order, oldest first, with "how many entries are newer than this one" in
// O(log n): slots are handed out in order, and a Fenwick tree counts the slots freed since (so a
// push costs no tree update; newer = later slots - freed later slots). When slots
// run out, the live entries are packed to the front (and the slots doubled when more than half
// are live), so a push costs O(1) amortized and memory stays within four times the entries held.
// Entries are Holdings ids, not hash text: the slots are typed arrays, so neither a push nor a
// lookup hashes a string (the interner did that once). The slot of an id is kept in the id's own
// info in Holdings (GhostSlots) when no other order keeps one there: a removal and a re-store read
// that cache line anyway, where a table of a million ids cost a cache miss per push and per take.
// An id already placed by another order (a hash in the G of two sources) goes to an IdTable.

import { IdTable } from '../collections/id-table';

const FIRST_SLOTS = 1024;
/** A slot without an entry. */
const FREE = -1;

/** An entry taken out of the order. */
export interface TakenGhost {
  /** Entries that were newer than it. */
  newer: number;
  removedAt: number;
}

/** Where the orders sharing an interner keep an id's slot, one order per id (see Holdings). */
export interface GhostSlots {
  /** A tag for a new order, never handed out before. */
  ghostTag(): number;
  /** id's slot when the order tagged `tag` keeps it here, else -1. */
  ghostSlot(id: number, tag: number): number;
  /** Keeps id's slot for the order `tag` unless another order keeps one for id; false then. */
  setGhostSlot(id: number, tag: number, slot: number): boolean;
  /** Forgets the slot kept for `tag` (nothing when another order's is kept). */
  clearGhostSlot(id: number, tag: number): void;
}

/** A removal-ordered set of hash ids with rank queries. */
export class GhostOrder {
  private slots: number;
  private tree: Int32Array;
  private keys: Int32Array;
  private at: Float64Array;
  /** Slots of the ids whose slot is not kept in `ids` (all of them without ids). */
  private readonly slotOf = new IdTable();
  private readonly tag: number;
  private count = 0;
  private next = 0;
  private oldest = 0;
  /** Freed slots below next. */
  private freed = 0;

  /**
   * capacity: the most entries it will be asked to hold (the caller pops the oldest past it);
   * ids: where slots are kept beside the ids' other fields (without it, in the order's own table).
   */
  constructor(
    private readonly capacity: number,
    private readonly ids: GhostSlots | null = null,
  ) {
    this.tag = ids?.ghostTag() ?? -1;
    this.slots = Math.min(FIRST_SLOTS, Math.max(2, 2 * capacity));
    this.tree = new Int32Array(this.slots + 1);
    this.keys = new Int32Array(this.slots).fill(FREE);
    this.at = new Float64Array(this.slots);
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  /** Whether id is held. */
  has(id: number): boolean {
    return this.slotIn(id) >= 0;
  }

  /** Appends id as the newest entry; the caller makes sure it is not held already. */
  push(id: number, removedAt: number): void {
    if (this.next === this.slots) this.pack();
    const slot = this.next++;
    this.keys[slot] = id;
    this.at[slot] = removedAt;
    this.count += 1;
    if (this.ids === null || !this.ids.setGhostSlot(id, this.tag, slot)) this.slotOf.set(id, slot);
  }

  /** Removes id and says how many entries were newer, or null when it is not held. */
  take(id: number): TakenGhost | null {
    const slot = this.slotOut(id);
    if (slot < 0) return null;
    const newer = this.next - 1 - slot - (this.freed - this.prefix(slot));
    const removedAt = this.at[slot] as number;
    this.free(slot);
    return { newer, removedAt };
  }

  /** Removes id without a rank query; false when it is not held. */
  delete(id: number): boolean {
    const slot = this.slotOut(id);
    if (slot < 0) return false;
    this.free(slot);
    return true;
  }

  /** Removes and returns the oldest entry. */
  popOldest(): { id: number; removedAt: number } | undefined {
    if (this.count === 0) return undefined;
    while (this.keys[this.oldest] === FREE) this.oldest += 1;
    const slot = this.oldest;
    const id = this.keys[slot] as number;
    const removedAt = this.at[slot] as number;
    this.slotOut(id);
    this.free(slot);
    return { id, removedAt };
  }

  /** Every entry, oldest first. */
  *entries(): IterableIterator<number> {
    for (let s = this.oldest; s < this.next; s += 1) {
      const k = this.keys[s] as number;
      if (k !== FREE) yield k;
    }
  }

  /** Calls fn with every entry, oldest first (do not change the order meanwhile). */
  forEachId(fn: (id: number) => void): void {
    const keys = this.keys;
    for (let s = this.oldest; s < this.next; s += 1) {
      const k = keys[s] as number;
      if (k !== FREE) fn(k);
    }
  }

  /** Forgets every entry (memory shrinks back to the first allocation). */
  clear(): void {
    const ids = this.ids;
    if (ids !== null) this.forEachId((id) => ids.clearGhostSlot(id, this.tag));
    this.slotOf.clear();
    this.count = 0;
    this.slots = Math.min(FIRST_SLOTS, Math.max(2, 2 * this.capacity));
    this.tree = new Int32Array(this.slots + 1);
    this.keys = new Int32Array(this.slots).fill(FREE);
    this.at = new Float64Array(this.slots);
    this.next = 0;
    this.oldest = 0;
    this.freed = 0;
  }

  /** id's slot, or -1 when it is not held. */
  private slotIn(id: number): number {
    const kept = this.ids === null ? -1 : this.ids.ghostSlot(id, this.tag);
    // Most ids are kept in `ids`: the table is probed only when it holds any.
    return kept >= 0 || this.slotOf.size === 0 ? kept : this.slotOf.get(id);
  }

  /** Forgets id's slot and returns it (-1 when id is not held). */
  private slotOut(id: number): number {
    const ids = this.ids;
    const kept = ids === null ? -1 : ids.ghostSlot(id, this.tag);
    if (kept >= 0) {
      (ids as GhostSlots).clearGhostSlot(id, this.tag);
      this.count -= 1;
      return kept;
    }
    if (this.slotOf.size === 0) return -1;
    const slot = this.slotOf.delete(id);
    if (slot >= 0) this.count -= 1;
    return slot;
  }

  /** Marks slot free (its id already left the order's slots). */
  private free(slot: number): void {
    this.keys[slot] = FREE;
    this.freed += 1;
    this.add(slot, 1);
  }

  /** Packs live entries to slots 0..n-1 in order, growing the slots when over half are live. */
  private pack(): void {
    const n = this.count;
    const slots = n * 2 > this.slots ? Math.max(this.slots * 2, 2) : this.slots;
    const keys = new Int32Array(slots).fill(FREE);
    const at = new Float64Array(slots);
    // The old keys array becomes old slot -> new slot once read, and slotOf is rewritten in one
    // sequential pass over its own table: setting each id anew would cost a random probe per
    // live entry, as many as the pushes between packs.
    const moved = this.keys;
    let j = 0;
    for (let s = this.oldest; s < this.next; s += 1) {
      const k = moved[s] as number;
      if (k === FREE) continue;
      keys[j] = k;
      at[j] = this.at[s] as number;
      moved[s] = j;
      // The slot kept beside the id moves here; the table's move in its own pass below.
      if (this.ids !== null && this.ids.ghostSlot(k, this.tag) >= 0)
        this.ids.setGhostSlot(k, this.tag, j);
      j += 1;
    }
    if (this.slotOf.size > 0) this.slotOf.remapValues(moved);
    this.slots = slots;
    this.keys = keys;
    this.at = at;
    // Packed: no slot below next is free.
    this.tree = new Int32Array(slots + 1);
    this.freed = 0;
    this.next = n;
    this.oldest = 0;
  }

  private add(slot: number, delta: number): void {
    for (let i = slot + 1; i <= this.slots; i += i & -i)
      this.tree[i] = (this.tree[i] as number) + delta;
  }

  /** Freed slots in 0..slot inclusive. */
  private prefix(slot: number): number {
    let sum = 0;
    for (let i = slot + 1; i > 0; i -= i & -i) sum += this.tree[i] as number;
    return sum;
  }
}
