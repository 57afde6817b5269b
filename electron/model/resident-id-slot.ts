// The model's resident sets hold forest ids. The first 31 (source, medium) slots keep them as a
// bit in a column of the forest's table plus a log of ids in the order they were added, not as a
// Set: a store or a removal is then a bit flip in a column the forest touches anyway (a Set cost a
// hash-table operation per block), and "resident in another medium of this source" is one read.
// The order matters: a clear releases the blocks in the order they became resident, and that
// decides which evicted blocks are forgotten first. A Set iterates in the order of each key's
// latest insertion; the log's newest entry for each id still resident is that insertion, so
// reading the log newest first and keeping the first entry of each resident id gives that order.

import { NODE_MASK, type NodeTable } from './node-table';
import { ResidentSlot, type Count } from './residency';

/** Slots past this many have no bit: they keep their members in their Set. */
const BITS = 31;
/** Stale log entries allowed past twice the members before the log is compacted. */
const LOG_SLACK = 1024;

/** The bit of the slot made index-th (0 past BITS). */
export function slotBit(index: number): number {
  return index < BITS ? 1 << index : 0;
}

/** A (source, medium) resident set of forest ids: table.slots bits and a log when it has a bit. */
export class ResidentIdSlot extends ResidentSlot<number> {
  /** Ids in the order they were added (stale entries of removed ids included). */
  private log = new Int32Array(256);
  private logLen = 0;
  private members = 0;

  constructor(
    total: Count,
    ofSource: Count,
    ofMedium: Count,
    private readonly table: NodeTable,
    /** This slot's bit in table.slots; 0 for none (then the inherited Set holds the members). */
    readonly bit: number,
    private readonly logSlack = LOG_SLACK,
  ) {
    super(total, ofSource, ofMedium);
  }

  override add(id: number): boolean {
    if (this.bit === 0) return super.add(id);
    const slots = this.table.page(id).slots;
    const o = id & NODE_MASK;
    const was = slots[o] as number;
    if ((was & this.bit) !== 0) return false;
    slots[o] = was | this.bit;
    if (this.logLen === this.log.length) this.growLog();
    this.log[this.logLen] = id;
    this.logLen += 1;
    this.members += 1;
    this.bump(1);
    if (this.logLen > 2 * this.members + this.logSlack) this.compact();
    return true;
  }

  override delete(id: number): boolean {
    if (this.bit === 0) return super.delete(id);
    const slots = this.table.page(id).slots;
    const o = id & NODE_MASK;
    const was = slots[o] as number;
    if ((was & this.bit) === 0) return false;
    slots[o] = was & ~this.bit;
    this.members -= 1;
    this.bump(-1);
    return true;
  }

  override bytes(): number {
    return this.log.byteLength + super.bytes();
  }

  override has(id: number): boolean {
    if (this.bit === 0) return super.has(id);
    return ((this.table.page(id).slots[id & NODE_MASK] as number) & this.bit) !== 0;
  }

  override get size(): number {
    return this.bit === 0 ? super.size : this.members;
  }

  override takeAll(): Iterable<number> {
    if (this.bit === 0) return super.takeAll();
    const all = this.takeMembers();
    this.bump(-all.length);
    this.members = 0;
    return all;
  }

  /**
   * The members in the order they were added (each at its latest add), their bits cleared (the
   * clearing is what marks an id as taken while the log is read newest first); the log emptied.
   */
  private takeMembers(): number[] {
    const table = this.table;
    const bit = this.bit;
    const out: number[] = [];
    for (let i = this.logLen - 1; i >= 0; i -= 1) {
      const id = this.log[i] as number;
      const slots = table.page(id).slots;
      const was = slots[id & NODE_MASK] as number;
      if ((was & bit) === 0) continue;
      slots[id & NODE_MASK] = was & ~bit;
      out.push(id);
    }
    this.logLen = 0;
    return out.reverse();
  }

  /** Drops the stale entries: the log holds each member once, in order. */
  private compact(): void {
    const members = this.takeMembers();
    for (let i = 0; i < members.length; i += 1) {
      const id = members[i] as number;
      const slots = this.table.page(id).slots;
      slots[id & NODE_MASK] = (slots[id & NODE_MASK] as number) | this.bit;
      this.log[i] = id;
    }
    this.logLen = members.length;
  }

  private growLog(): void {
    const log = new Int32Array(this.log.length * 2);
    log.set(this.log);
    this.log = log;
  }
}
