// Hash ids in removal order, oldest first, with "how many entries are newer than this one" in
// O(log n): slots are handed out in order, and a Fenwick tree counts the slots freed since (so a
// push costs no tree update; newer = later slots - freed later slots). When slots
// run out, the live entries are packed to the front (and the slots doubled when more than half
// are live), so a push costs O(1) amortized and memory stays within four times the entries held.
// Entries are Holdings ids, not hash text: the slots are typed arrays and the slot of an id is in
// an IdTable, so neither a push nor a lookup hashes a string (the interner did that once).

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

/** A removal-ordered set of hash ids with rank queries. */
export class GhostOrder {
  private slots: number;
  private tree: Int32Array;
  private keys: Int32Array;
  private at: Float64Array;
  private readonly slotOf = new IdTable();
  private next = 0;
  private oldest = 0;
  /** Freed slots below next. */
  private freed = 0;

  /** capacity: the most entries it will be asked to hold (the caller pops the oldest past it). */
  constructor(private readonly capacity: number) {
    this.slots = Math.min(FIRST_SLOTS, Math.max(2, 2 * capacity));
    this.tree = new Int32Array(this.slots + 1);
    this.keys = new Int32Array(this.slots).fill(FREE);
    this.at = new Float64Array(this.slots);
  }

  /** Entries held. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Whether id is held. */
  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Appends id as the newest entry; the caller makes sure it is not held already. */
  push(id: number, removedAt: number): void {
    if (this.next === this.slots) this.pack();
    const slot = this.next++;
    this.keys[slot] = id;
    this.at[slot] = removedAt;
    this.slotOf.set(id, slot);
  }

  /** Removes id and says how many entries were newer, or null when it is not held. */
  take(id: number): TakenGhost | null {
    const slot = this.slotOf.delete(id);
    if (slot < 0) return null;
    const newer = this.next - 1 - slot - (this.freed - this.prefix(slot));
    const removedAt = this.at[slot] as number;
    this.free(slot);
    return { newer, removedAt };
  }

  /** Removes id without a rank query; false when it is not held. */
  delete(id: number): boolean {
    const slot = this.slotOf.delete(id);
    if (slot < 0) return false;
    this.free(slot);
    return true;
  }

  /** Removes and returns the oldest entry. */
  popOldest(): { id: number; removedAt: number } | undefined {
    if (this.slotOf.size === 0) return undefined;
    while (this.keys[this.oldest] === FREE) this.oldest += 1;
    const slot = this.oldest;
    const id = this.keys[slot] as number;
    const removedAt = this.at[slot] as number;
    this.slotOf.delete(id);
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
    this.slotOf.clear();
    this.slots = Math.min(FIRST_SLOTS, Math.max(2, 2 * this.capacity));
    this.tree = new Int32Array(this.slots + 1);
    this.keys = new Int32Array(this.slots).fill(FREE);
    this.at = new Float64Array(this.slots);
    this.next = 0;
    this.oldest = 0;
    this.freed = 0;
  }

  /** Marks slot free (its id already left slotOf). */
  private free(slot: number): void {
    this.keys[slot] = FREE;
    this.freed += 1;
    this.add(slot, 1);
  }

  /** Packs live entries to slots 0..n-1 in order, growing the slots when over half are live. */
  private pack(): void {
    const n = this.slotOf.size;
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
      j += 1;
    }
    this.slotOf.remapValues(moved);
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
