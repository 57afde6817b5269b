// Dense ids for hash keys, handed out and recycled by the caller. Most keys are u64 hashes in
// canonical decimal (vLLM, SGLang): a key of up to 20 digits without a leading zero is
// hi * 10^10 + lo, read as two exact numbers below 10^10, and kept in a
// Float64Array per id (beside two integers of the caller's, in the same cache line), found through
// an open-addressing table of (id, check bits). A lookup then
// touches one or two cache lines and no string: a Map<string, id> compares the key's text through
// pointers (three or four cache misses a block on large maps) and keeps every key string alive.
// Other keys (hex digests, negative integers) go to a Map.

import type { HashKey } from '../../shared/events';

/** An empty table slot / no id. */
const EMPTY = -1;
const FIRST_SLOTS = 1024;
const TWO_32 = 2 ** 32;
/** Per id in parts: hi, lo, then the two payload values. */
const STRIDE = 4;

/** Hash keys to ids and back. */
export class HashIds {
  /** Pairs (id, check) per slot; check is 32 bits of the key's mix, compared before the key. */
  private table = new Int32Array(2 * FIRST_SLOTS).fill(EMPTY);
  private mask = FIRST_SLOTS - 1;
  private shift = 32 - Math.log2(FIRST_SLOTS);
  private used = 0;
  /** hi, lo per id (decimal keys; NaN for a key kept in `other`), then its two payload values. */
  private parts = new Float64Array(STRIDE * FIRST_SLOTS);
  /** Keys that are not canonical decimals, both ways. */
  private readonly other = new Map<HashKey, number>();
  private readonly otherKeys = new Map<number, HashKey>();
  /** The last key parse() read (null when it was no canonical decimal): its parts and mix. */
  private parsed: HashKey | null = null;
  private hi = 0;
  private lo = 0;
  private mix = 0;

  /** The id of key, or -1. */
  find(key: HashKey): number {
    if (!this.parse(key)) return this.other.get(key) ?? EMPTY;
    const table = this.table;
    const parts = this.parts;
    for (let i = this.mix >>> this.shift; ; i = (i + 1) & this.mask) {
      const id = table[2 * i] as number;
      if (id === EMPTY) return EMPTY;
      if (
        table[2 * i + 1] === this.mix &&
        parts[STRIDE * id + 1] === this.lo &&
        parts[STRIDE * id] === this.hi
      )
        return id;
    }
  }

  /** Gives key (which find() just said has none) the id, an unused one below idCapacity. */
  set(key: HashKey, id: number): void {
    if (id >= this.parts.length / STRIDE) this.growParts(id);
    // A new block's set() follows the find() of its key: its parts are read already.
    if (key !== this.parsed && !this.parse(key)) {
      this.other.set(key, id);
      this.otherKeys.set(id, key);
      this.parts[STRIDE * id] = NaN;
      return;
    }
    this.parts[STRIDE * id] = this.hi;
    this.parts[STRIDE * id + 1] = this.lo;
    if ((this.used + 1) * 2 > this.mask + 1) this.growTable();
    this.place(id, this.mix);
  }

  /** Payload value k (0 or 1) of id: the caller's, kept beside the key (0 for an id never set). */
  payload(id: number, k: number): number {
    return this.parts[STRIDE * id + 2 + k] as number;
  }

  /** Sets payload value k (0 or 1) of id, an id set() gave (an exact integer). */
  setPayload(id: number, k: number, value: number): void {
    this.parts[STRIDE * id + 2 + k] = value;
  }

  /** The key of id. */
  keyOf(id: number): HashKey {
    const hi = this.parts[STRIDE * id] as number;
    if (Number.isNaN(hi)) return this.otherKeys.get(id) as HashKey;
    const lo = this.parts[STRIDE * id + 1] as number;
    return hi === 0 ? `${lo}` : `${hi}${`${lo}`.padStart(10, '0')}`;
  }

  /** Forgets id (and its key). */
  delete(id: number): void {
    const hi = this.parts[STRIDE * id] as number;
    if (Number.isNaN(hi)) {
      this.other.delete(this.otherKeys.get(id) as HashKey);
      this.otherKeys.delete(id);
      return;
    }
    const table = this.table;
    const mask = this.mask;
    let i = mixOf(hi, this.parts[STRIDE * id + 1] as number) >>> this.shift;
    while (table[2 * i] !== id) i = (i + 1) & mask;
    this.used -= 1;
    // Backward shift (linear probing without tombstones): later entries of the run move into the
    // hole unless their home lies cyclically in (hole, j].
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = table[2 * j] as number;
      if (k === EMPTY) break;
      const h = (table[2 * j + 1] as number) >>> this.shift;
      if (i <= j ? i < h && h <= j : i < h || h <= j) continue;
      table[2 * i] = k;
      table[2 * i + 1] = table[2 * j + 1] as number;
      i = j;
    }
    table[2 * i] = EMPTY;
  }

  /** Reads key as a canonical decimal of at most 20 digits into hi, lo and mix; false if not. */
  private parse(key: HashKey): boolean {
    this.parsed = null;
    const n = key.length;
    if (n === 0 || n > 20 || (n > 1 && key.charCodeAt(0) === 48)) return false;
    const split = n > 10 ? n - 10 : 0;
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < n; i += 1) {
      const d = key.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return false;
      if (i < split) hi = hi * 10 + d;
      else lo = lo * 10 + d;
    }
    this.hi = hi;
    this.lo = lo;
    this.mix = mixOf(hi, lo);
    this.parsed = key;
    return true;
  }

  private place(id: number, mix: number): void {
    const table = this.table;
    let i = mix >>> this.shift;
    while (table[2 * i] !== EMPTY) i = (i + 1) & this.mask;
    table[2 * i] = id;
    table[2 * i + 1] = mix;
    this.used += 1;
  }

  private growTable(): void {
    const old = this.table;
    const slots = (this.mask + 1) * 2;
    this.table = new Int32Array(2 * slots).fill(EMPTY);
    this.mask = slots - 1;
    this.shift -= 1;
    this.used = 0;
    for (let i = 0; i < old.length; i += 2) {
      const id = old[i] as number;
      if (id !== EMPTY) this.place(id, old[i + 1] as number);
    }
  }

  private growParts(id: number): void {
    let n = this.parts.length;
    while (n < STRIDE * (id + 1)) n *= 2;
    const parts = new Float64Array(n);
    parts.set(this.parts);
    this.parts = parts;
  }
}

/** 32 well-mixed bits of a decimal key's parts (murmur3's finalizer over both halves). */
function mixOf(hi: number, lo: number): number {
  let h = Math.imul((lo >>> 0) ^ Math.imul(hi >>> 0, 0x9e3779b1), 0x85ebca6b);
  // The bits of lo and hi above 32 (both are below 10^10 < 2^34).
  h ^= Math.imul(Math.floor(lo / TWO_32) | (Math.floor(hi / TWO_32) << 2), 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
