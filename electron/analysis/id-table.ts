// A map from hash ids (small integers >= 0) to integers >= 0, in two typed arrays: open addressing
// with linear probing and backward-shift deletion (no tombstones). A JS Map of numbers costs
// about three times the memory per entry and allocates as it churns; R and G of every
// (source, medium) are such maps, looked up once or twice per block, so this is the analysis'
// innermost loop.

/** An empty key (ids are >= 0) and the answer for an absent one. */
const EMPTY = -1;
const FIRST_CAPACITY = 1024;

/** An integer-to-integer map for hash ids. */
export class IdTable {
  private keys: Int32Array;
  private vals: Int32Array;
  private mask: number;
  /** 32 - log2(capacity): Fibonacci hashing takes the top bits of id * 2^32 / phi. */
  private shift: number;
  private count = 0;

  constructor() {
    this.keys = new Int32Array(FIRST_CAPACITY).fill(EMPTY);
    this.vals = new Int32Array(FIRST_CAPACITY);
    this.mask = FIRST_CAPACITY - 1;
    this.shift = 32 - Math.log2(FIRST_CAPACITY);
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  /** The value of id, or -1 when it is not held. */
  get(id: number): number {
    const keys = this.keys;
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const k = keys[i] as number;
      if (k === id) return this.vals[i] as number;
      if (k === EMPTY) return EMPTY;
    }
  }

  /** Whether id is held. */
  has(id: number): boolean {
    return this.get(id) !== EMPTY;
  }

  /** Sets id's value (value >= 0), adding id when it is not held. */
  set(id: number, value: number): void {
    // Grown past half full: probes stay short.
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    let i = this.home(id);
    for (; ; i = (i + 1) & this.mask) {
      const k = keys[i] as number;
      if (k === id) break;
      if (k === EMPTY) {
        keys[i] = id;
        this.count += 1;
        break;
      }
    }
    this.vals[i] = value;
  }

  /** Removes id and returns its value, or -1 when it was not held. */
  delete(id: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(id);
    for (; ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === id) break;
      if (k === EMPTY) return EMPTY;
    }
    const value = this.vals[i] as number;
    this.count -= 1;
    // Backward shift: later entries of the probe run move into the hole when their home allows,
    // so every run stays unbroken without tombstones.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = keys[j] as number;
      if (k === EMPTY) break;
      const h = this.home(k);
      // k may fill the hole at i unless its home lies cyclically in (i, j].
      if (i <= j ? i < h && h <= j : i < h || h <= j) continue;
      keys[i] = k;
      this.vals[i] = this.vals[j] as number;
      i = j;
    }
    keys[i] = EMPTY;
    return value;
  }

  /** Calls fn for every entry (do not change the table meanwhile). */
  forEach(fn: (id: number, value: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i += 1) {
      const k = keys[i] as number;
      if (k !== EMPTY) fn(k, this.vals[i] as number);
    }
  }

  /** Forgets every entry (memory shrinks back to the first allocation). */
  clear(): void {
    this.keys = new Int32Array(FIRST_CAPACITY).fill(EMPTY);
    this.vals = new Int32Array(FIRST_CAPACITY);
    this.mask = FIRST_CAPACITY - 1;
    this.shift = 32 - Math.log2(FIRST_CAPACITY);
    this.count = 0;
  }

  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const keys = this.keys;
    const vals = this.vals;
    const n = keys.length * 2;
    this.keys = new Int32Array(n).fill(EMPTY);
    this.vals = new Int32Array(n);
    this.mask = n - 1;
    this.shift -= 1;
    this.count = 0;
    for (let i = 0; i < keys.length; i += 1) {
      const k = keys[i] as number;
      if (k !== EMPTY) this.set(k, vals[i] as number);
    }
  }
}
