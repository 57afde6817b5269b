// A map from hash ids (small integers >= 0) to integers >= 0, in one typed array of (key, value)
// pairs, so that a hit costs one cache line: open addressing with linear probing and
// backward-shift deletion (no tombstones). A JS Map of numbers costs
// about three times the memory per entry and allocates as it churns; R and G of every
// (source, medium) are such maps, looked up once or twice per block, so this is the analysis'
// innermost loop.

/** An empty key (ids are >= 0) and the answer for an absent one. */
const EMPTY = -1;
const FIRST_CAPACITY = 1024;

/** An integer-to-integer map for hash ids. */
export class IdTable {
  /** key, value, key, value...: slot i at 2i. */
  private pairs: Int32Array;
  private mask: number;
  /** 32 - log2(capacity): Fibonacci hashing takes the top bits of id * 2^32 / phi. */
  private shift: number;
  private count = 0;

  constructor() {
    this.pairs = new Int32Array(2 * FIRST_CAPACITY).fill(EMPTY);
    this.mask = FIRST_CAPACITY - 1;
    this.shift = 32 - Math.log2(FIRST_CAPACITY);
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  /** The value of id, or -1 when it is not held. */
  get(id: number): number {
    const pairs = this.pairs;
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const k = pairs[2 * i] as number;
      if (k === id) return pairs[2 * i + 1] as number;
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
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    const pairs = this.pairs;
    let i = this.home(id);
    for (; ; i = (i + 1) & this.mask) {
      const k = pairs[2 * i] as number;
      if (k === id) break;
      if (k === EMPTY) {
        pairs[2 * i] = id;
        this.count += 1;
        break;
      }
    }
    pairs[2 * i + 1] = value;
  }

  /** Removes id and returns its value, or -1 when it was not held. */
  delete(id: number): number {
    const pairs = this.pairs;
    const mask = this.mask;
    let i = this.home(id);
    for (; ; i = (i + 1) & mask) {
      const k = pairs[2 * i] as number;
      if (k === id) break;
      if (k === EMPTY) return EMPTY;
    }
    const value = pairs[2 * i + 1] as number;
    this.count -= 1;
    // Backward shift: later entries of the probe run move into the hole when their home allows,
    // so every run stays unbroken without tombstones.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = pairs[2 * j] as number;
      if (k === EMPTY) break;
      const h = this.home(k);
      // k may fill the hole at i unless its home lies cyclically in (i, j].
      if (i <= j ? i < h && h <= j : i < h || h <= j) continue;
      pairs[2 * i] = k;
      pairs[2 * i + 1] = pairs[2 * j + 1] as number;
      i = j;
    }
    pairs[2 * i] = EMPTY;
    return value;
  }

  /** Calls fn for every entry (do not change the table meanwhile). */
  forEach(fn: (id: number, value: number) => void): void {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) {
      const k = pairs[i] as number;
      if (k !== EMPTY) fn(k, pairs[i + 1] as number);
    }
  }

  /** Replaces every value v by to[v] in one pass over the table (to covers every value held). */
  remapValues(to: Int32Array): void {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2)
      if (pairs[i] !== EMPTY) pairs[i + 1] = to[pairs[i + 1] as number] as number;
  }

  /** Bytes of the table (for the memory figures). */
  bytes(): number {
    return this.pairs.byteLength;
  }

  /** Forgets every entry (memory shrinks back to the first allocation). */
  clear(): void {
    this.pairs = new Int32Array(2 * FIRST_CAPACITY).fill(EMPTY);
    this.mask = FIRST_CAPACITY - 1;
    this.shift = 32 - Math.log2(FIRST_CAPACITY);
    this.count = 0;
  }

  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const old = this.pairs;
    const n = (this.mask + 1) * 2;
    this.pairs = new Int32Array(2 * n).fill(EMPTY);
    this.mask = n - 1;
    this.shift -= 1;
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const k = old[i] as number;
      if (k !== EMPTY) this.set(k, old[i + 1] as number);
    }
  }
}
