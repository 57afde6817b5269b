// R of one (source, medium): resident hashes with the ts of the store that made them resident.
// The times live in a typed array indexed by a small integer the map holds, so a store allocates
// no boxed number (a million stores a second would otherwise feed the garbage collector).

import type { HashKey } from '../../shared/events';

/** Resident hashes and their store times. */
export class ResidentSet {
  private readonly slotOf = new Map<HashKey, number>();
  private at = new Float64Array(1024);
  private free: number[] = [];
  private next = 0;

  /** Hashes resident. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Whether hash is resident. */
  has(hash: HashKey): boolean {
    return this.slotOf.has(hash);
  }

  /** Makes hash resident, stored at ts (the caller knows it was not). */
  add(hash: HashKey, ts: number): void {
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
    this.slotOf.set(hash, slot);
  }

  /** Removes hash and returns its store ts, or undefined when it was not resident. */
  take(hash: HashKey): number | undefined {
    const slot = this.slotOf.get(hash);
    if (slot === undefined) return undefined;
    this.slotOf.delete(hash);
    this.free.push(slot);
    return this.at[slot];
  }

  /** The resident hashes. */
  keys(): IterableIterator<HashKey> {
    return this.slotOf.keys();
  }

  /** Empties the set. */
  clear(): void {
    this.slotOf.clear();
    this.at = new Float64Array(1024);
    this.free = [];
    this.next = 0;
  }
}
