// The children the forest counts under parents that are not known blocks (never stored, or
// forgotten), so that a parent stored again takes its count back. Keyed like the hash id table
// (hash-ids.ts): a decimal parent is two numbers, found with no string made or kept. A Map of the
// parents' texts held a string per such parent, and a stream that loses removals keeps blocks
// resident whose parents are forgotten: 176,000 of them were 12 MB of the service's heap.

import type { HashKey } from '../../shared/events';
import { grown } from '../collections/grown-column';
import { HashIds } from '../collections/hash-ids';

const FIRST = 1024;

/** Child counts by parent hash. */
export class OrphanCounts {
  private readonly keys = new HashIds();
  private counts = new Int32Array(FIRST);
  private readonly free: number[] = [];
  private next = 0;
  private live = 0;

  /** Parents counted. */
  get size(): number {
    return this.live;
  }

  /** The count of parent, 0 when none. */
  get(parent: HashKey): number {
    const id = this.keys.find(parent);
    return id < 0 ? 0 : (this.counts[id] as number);
  }

  /** Takes parent's count out (0 when none). */
  take(parent: HashKey): number {
    const id = this.keys.find(parent);
    if (id < 0) return 0;
    const n = this.counts[id] as number;
    this.drop(id);
    return n;
  }

  /** Takes the count of the canonical decimal parent with these parts out (0 when none). */
  takeParts(hi: number, lo: number): number {
    const id = this.keys.findParts(hi, lo);
    if (id < 0) return 0;
    const n = this.counts[id] as number;
    this.drop(id);
    return n;
  }

  /** Adds d to parent's count (dropping it at 0; a parent not counted takes no decrement). */
  add(parent: HashKey, d: number): void {
    const id = this.keys.find(parent);
    if (id >= 0) this.settle(id, (this.counts[id] as number) + d);
    else if (d > 0) this.settle(this.make(parent), d);
  }

  /** Adds d to the count of the canonical decimal parent with these parts (hash-ids.ts). */
  addParts(hi: number, lo: number, d: number): void {
    const id = this.keys.findParts(hi, lo);
    if (id >= 0) this.settle(id, (this.counts[id] as number) + d);
    else if (d > 0) {
      const made = this.newId();
      this.keys.setParts(hi, lo, made);
      this.settle(made, d);
    }
  }

  /** Bytes of the table and the counts (for the memory figures). */
  bytes(): number {
    return this.keys.bytes() + this.counts.byteLength + 8 * this.free.length;
  }

  private make(parent: HashKey): number {
    const id = this.newId();
    this.keys.set(parent, id);
    return id;
  }

  /** An id for a parent the caller gives it next. */
  private newId(): number {
    const id = this.free.pop() ?? this.next++;
    if (id >= this.counts.length) this.counts = grown(this.counts, 2 * this.counts.length);
    this.counts[id] = 0;
    this.live += 1;
    return id;
  }

  private settle(id: number, n: number): void {
    if (n > 0) this.counts[id] = n;
    else this.drop(id);
  }

  private drop(id: number): void {
    this.keys.delete(id);
    this.free.push(id);
    this.live -= 1;
  }
}
