// Live batches held behind an open gap, in seq order. Live batches arrive in seq order, so an
// insert is almost always an append; taking from the front is O(1) (a head index, compacted
// now and then), so holding 100,000 batches costs no sorting and no O(n) shifts.

interface Entry<T> {
  seq: bigint;
  item: T;
  bytes: number;
}

/** An ordered, byte-counted queue of held batches keyed by seq. */
export class HeldBatches<T> {
  private entries: Entry<T>[] = [];
  private head = 0;
  private readonly seqs = new Set<bigint>();
  private byteCount = 0;

  /** Batches held. */
  get size(): number {
    return this.entries.length - this.head;
  }

  /** Payload bytes held. */
  get bytes(): number {
    return this.byteCount;
  }

  /** Whether a batch with this seq is held. */
  has(seq: bigint): boolean {
    return this.seqs.has(seq);
  }

  /** The lowest seq held, or null when empty. */
  firstSeq(): bigint | null {
    return this.head < this.entries.length ? (this.entries[this.head] as Entry<T>).seq : null;
  }

  /** The lowest batch held, left held, or null when empty. */
  first(): T | null {
    return this.head < this.entries.length ? (this.entries[this.head] as Entry<T>).item : null;
  }

  /** The highest seq held, or null when empty. */
  lastSeq(): bigint | null {
    return this.size > 0 ? (this.entries[this.entries.length - 1] as Entry<T>).seq : null;
  }

  /** Holds a batch (the caller checks `has` first). */
  add(seq: bigint, item: T, bytes: number): void {
    this.seqs.add(seq);
    this.byteCount += bytes;
    const e = { seq, item, bytes };
    const last = this.lastSeq();
    if (last === null || seq > last) {
      this.entries.push(e);
      return;
    }
    // Out of order (rare): binary search the insertion point in the live part.
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as Entry<T>).seq < seq) lo = mid + 1;
      else hi = mid;
    }
    this.entries.splice(lo, 0, e);
  }

  /** Removes and returns the lowest batch. */
  shift(): Entry<T> | null {
    if (this.head >= this.entries.length) return null;
    const e = this.entries[this.head] as Entry<T>;
    this.entries[this.head] = undefined as unknown as Entry<T>;
    this.head++;
    this.seqs.delete(e.seq);
    this.byteCount -= e.bytes;
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return e;
  }
}
