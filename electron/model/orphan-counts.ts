// The children the forest counts under parents that are not known blocks (never stored, or
// forgotten), so that a parent stored again takes its count back. Keyed like the hash id table
// (hash-ids.ts): a decimal parent is two numbers, found with no string made or kept. A Map of the
// parents' texts held a string per such parent, and a stream that loses removals keeps blocks
// resident whose parents are forgotten: 176,000 of them were 12 MB of the service's heap.

import type { HashKey } from '../../shared/events';
import { CountedIds } from '../collections/counted-ids';

/** Child counts by parent hash. */
export class OrphanCounts {
  private readonly ids = new CountedIds();

  /** Parents counted. */
  get size(): number {
    return this.ids.size;
  }

  /** The count of parent, 0 when none. */
  get(parent: HashKey): number {
    const id = this.ids.find(parent);
    return id < 0 ? 0 : this.ids.count(id);
  }

  /** Takes parent's count out (0 when none). */
  take(parent: HashKey): number {
    return this.takeId(this.ids.find(parent));
  }

  /** Takes the count of the canonical decimal parent with these parts out (0 when none). */
  takeParts(hi: number, lo: number): number {
    return this.takeId(this.ids.findParts(hi, lo));
  }

  /** Adds d to parent's count (dropping it at 0; a parent not counted takes no decrement). */
  add(parent: HashKey, d: number): void {
    const id = this.ids.find(parent);
    if (id >= 0) this.ids.add(id, d);
    else if (d > 0) this.ids.add(this.ids.make(parent), d);
  }

  /** Adds d to the count of the canonical decimal parent with these parts (hash-ids.ts). */
  addParts(hi: number, lo: number, d: number): void {
    const id = this.ids.findParts(hi, lo);
    if (id >= 0) this.ids.add(id, d);
    else if (d > 0) this.ids.add(this.ids.makeParts(hi, lo), d);
  }

  /** Bytes of the table and the counts (for the memory figures). */
  bytes(): number {
    return this.ids.bytes();
  }

  private takeId(id: number): number {
    if (id < 0) return 0;
    const n = this.ids.count(id);
    this.ids.drop(id);
    return n;
  }
}
