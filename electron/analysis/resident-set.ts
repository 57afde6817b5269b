// R of one (source, medium): resident hashes (by their Holdings id) with the ts of the store that
// made them resident. The times live in a typed array indexed by a small integer the table holds,
// so a store allocates no boxed number (a million stores a second would otherwise feed the garbage
// collector); the keys are ids in an IdTable, so a lookup hashes a small integer, not the hash's
// text.

import { IdTable } from '../collections/id-table';

/** Resident hashes and their store times. */
export class ResidentSet {
  private readonly slotOf = new IdTable();
  private at = new Float64Array(1024);
  private free: number[] = [];
  private next = 0;

  /** Hashes resident. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Whether id is resident. */
  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Makes id resident, stored at ts (the caller knows it was not). */
  add(id: number, ts: number): void {
    let slot = this.free.pop();
    if (slot === undefined) {
      if (this.next === this.at.length) {
        const grown = new Float64Array(this.at.length * 2);
        grown.set(this.at);
        this.at = grown;
      }
      slot = this.next++;
    }
    this.at[slot] = ts;
    this.slotOf.set(id, slot);
  }

  /** Removes id and returns its store ts, or undefined when it was not resident. */
  take(id: number): number | undefined {
    const slot = this.slotOf.delete(id);
    if (slot < 0) return undefined;
    this.free.push(slot);
    return this.at[slot];
  }

  /** Calls fn with every resident id (do not change the set meanwhile). */
  forEachId(fn: (id: number) => void): void {
    this.slotOf.forEach(fn);
  }

  /** Bytes of its table and store times (for the memory figures). */
  bytes(): number {
    return this.slotOf.bytes() + this.at.byteLength + 8 * this.free.length;
  }

  /** Empties the set. */
  clear(): void {
    this.slotOf.clear();
    this.at = new Float64Array(1024);
    this.free = [];
    this.next = 0;
  }
}
