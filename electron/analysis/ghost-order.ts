// Hash ids in removal order, oldest first, with "how many entries are newer than this one" in
// O(log n): slots are handed out in order, and a Fenwick tree counts the slots freed since (so a
// push costs no tree update; newer = later slots - freed later slots). When slots run out, the
// live entries are packed to the front in place (the slots grown when fewer than a quarter of them
// would be free, never past 1.25 times the capacity), so a push costs O(1) amortized and a full
// order of a million entries holds 21 MB, not the 34 MB of slots doubled to twice the entries.
// Entries are Holdings ids, not hash text: the slots are typed arrays, so neither a push nor a
// lookup hashes a string (the interner did that once). The slot of an id is kept in the id's own
// info in Holdings (GhostSlots) when no other order keeps one there: a removal and a re-store read
// that cache line anyway, where a table of a million ids cost a cache miss per push and per take.
// An id already placed by another order (a hash in the G of two sources) goes to an IdTable.

import { IdTable } from '../collections/id-table';

const FIRST_SLOTS = 1024;
/** A slot without an entry. */
const FREE = -1;

/** The most slots an order of `capacity` entries takes: a quarter more (at least two) than it holds. */
export function maxGhostSlots(capacity: number): number {
  // The caller may push one entry past the capacity before it pops the oldest.
  const most = capacity + 1;
  return most + Math.max(2, most >>> 2);
}

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
  private readonly maxSlots: number;
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
    this.maxSlots = maxGhostSlots(capacity);
    this.slots = Math.min(FIRST_SLOTS, this.maxSlots);
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
    this.slots = Math.min(FIRST_SLOTS, this.maxSlots);
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

  /** Bytes of its slots and its own table (for the memory figures). */
  bytes(): number {
    return this.tree.byteLength + this.keys.byteLength + this.at.byteLength + this.slotOf.bytes();
  }

  /** Slots this order holds now (its arrays' length). */
  get slotCount(): number {
    return this.slots;
  }

  /**
   * Packs live entries to slots 0..n-1 in order, in place, growing the slots first when fewer
   * than a quarter of them (at least two) would be free: a pack then comes at most every n/4
   * pushes. In place, a pack allocates nothing (a new set of arrays per pack was 16 bytes a slot
   * of garbage each time).
   */
  private pack(): void {
    const n = this.count;
    const room = Math.max(2, n >>> 2);
    let slots = this.slots;
    if (n + room > slots) slots = Math.max(Math.min(2 * slots, this.maxSlots), n + room);
    const grow = slots !== this.slots;
    const keys = grow ? new Int32Array(slots).fill(FREE) : this.keys;
    const at = grow ? new Float64Array(slots) : this.at;
    const old = this.keys;
    const oldAt = this.at;
    // Old slot -> new slot for the ids whose slot is in slotOf, rewritten in one sequential pass
    // over its own table: setting each id anew would cost a random probe per entry there.
    const moved = this.slotOf.size > 0 ? new Int32Array(this.next) : null;
    const ids = this.ids;
    let j = 0;
    for (let s = this.oldest; s < this.next; s += 1) {
      const k = old[s] as number;
      if (k === FREE) continue;
      // j <= s: moving forward in place never overwrites an entry not read yet.
      keys[j] = k;
      at[j] = oldAt[s] as number;
      if (moved !== null) moved[s] = j;
      // The slot kept beside the id moves here; the table's move in its own pass below.
      if (ids !== null && ids.ghostSlot(k, this.tag) >= 0) ids.setGhostSlot(k, this.tag, j);
      j += 1;
    }
    if (!grow) keys.fill(FREE, j, this.next);
    if (moved !== null) this.slotOf.remapValues(moved);
    this.slots = slots;
    this.keys = keys;
    this.at = at;
    // Packed: no slot below next is free.
    if (grow) this.tree = new Int32Array(slots + 1);
    else this.tree.fill(0);
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
