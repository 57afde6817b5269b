// Hash keys with a count each: an id per key in a HashIds table, the count kept as the id's
// payload; a key whose count falls to 0 is forgotten and its id used again. The forest counts
// children under parents it does not know this way (orphan-counts.ts), and the metrics' tally the
// resident sets that hold a block (block-tally.ts).

import type { HashKey } from '../../shared/events';
import { HashIds } from './hash-ids';

export class CountedIds {
  private readonly table = new HashIds();
  private readonly free: number[] = [];
  private next = 0;

  /** Keys counted. */
  get size(): number {
    return this.next - this.free.length;
  }

  /** The id of key, or -1. */
  find(key: HashKey): number {
    return this.table.find(key);
  }

  /** The id of the canonical decimal key with these parts (hash-ids.ts), or -1. */
  findParts(hi: number, lo: number): number {
    return this.table.findParts(hi, lo);
  }

  /** An id for key, which find() just said has none, with a count of 0 (the caller adds to it). */
  make(key: HashKey): number {
    const id = this.free.pop() ?? this.next++;
    this.table.set(key, id);
    this.table.setPayload(id, 0);
    return id;
  }

  /** make() for the canonical decimal key with these parts. */
  makeParts(hi: number, lo: number): number {
    const id = this.free.pop() ?? this.next++;
    this.table.setParts(hi, lo, id);
    this.table.setPayload(id, 0);
    return id;
  }

  /** The count of id. */
  count(id: number): number {
    return this.table.payload(id);
  }

  /** Adds d to id's count; at 0 or below, the key is forgotten and id freed. */
  add(id: number, d: number): void {
    const n = this.table.payload(id) + d;
    if (n > 0) this.table.setPayload(id, n);
    else this.drop(id);
  }

  /** Forgets id's key, whatever its count. */
  drop(id: number): void {
    this.table.delete(id);
    this.free.push(id);
  }

  /** Bytes of the table and the free list (for the memory figures). */
  bytes(): number {
    return this.table.bytes() + 8 * this.free.length;
  }
}
