// The model's resident sets hold forest ids, and the first 31 (source, medium) slots also mark
// their members in a bit column of the forest's table: "is it resident here / in another medium
// of this source" is then one read of a column the store touches anyway, where a Set look-up per
// slot cost a hash-table probe. The Set stays: it keeps the order in which the blocks became
// resident, which a clear releases them in (that order decides which evicted blocks are
// forgotten first).

import type { NodeTable } from './node-table';
import { ResidentSlot, type Count } from './residency';

/** Slots past this many have no bit: they answer from their Set. */
const BITS = 31;

/** The bit of the slot made index-th (0 past BITS). */
export function slotBit(index: number): number {
  return index < BITS ? 1 << index : 0;
}

/** A (source, medium) resident set of forest ids, mirrored in table.slots when it has a bit. */
export class ResidentIdSlot extends ResidentSlot<number> {
  constructor(
    total: Count,
    ofSource: Count,
    ofMedium: Count,
    private readonly table: NodeTable,
    /** This slot's bit in table.slots; 0 for none. */
    readonly bit: number,
  ) {
    super(total, ofSource, ofMedium);
  }

  override add(id: number): boolean {
    if (this.bit === 0) return super.add(id);
    const slots = this.table.slots;
    const was = slots[id] as number;
    if ((was & this.bit) !== 0) return false;
    slots[id] = was | this.bit;
    this.set.add(id);
    this.bump(1);
    return true;
  }

  override delete(id: number): boolean {
    if (this.bit === 0) return super.delete(id);
    const slots = this.table.slots;
    const was = slots[id] as number;
    if ((was & this.bit) === 0) return false;
    slots[id] = was & ~this.bit;
    this.set.delete(id);
    this.bump(-1);
    return true;
  }

  override has(id: number): boolean {
    return this.bit === 0 ? super.has(id) : ((this.table.slots[id] as number) & this.bit) !== 0;
  }

  override takeAll(): Set<number> {
    const all = super.takeAll();
    if (this.bit !== 0) {
      const slots = this.table.slots;
      for (const id of all) slots[id] = (slots[id] as number) & ~this.bit;
    }
    return all;
  }
}
