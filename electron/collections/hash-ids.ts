// Dense ids for hash keys, handed out and recycled by the caller. Most keys are u64 hashes in
// canonical decimal (vLLM, SGLang): a key of up to 20 digits without a leading zero is
// hi * 10^10 + lo, read as two exact numbers below 10^10, and kept per id beside one payload value
// of the caller's (16 bytes: lo as a double, hi and the payload as 32-bit words, in one cache
// line), found through an open-addressing table of (id, check bits). A lookup then touches one or
// two cache lines and no string: a Map<string, id> compares the key's text through pointers (three
// or four cache misses a block on large maps) and keeps every key string alive. Other keys (hex
// digests, negative integers, decimals past 2^32 - 1 in hi: beyond u64) go to a Map.
//
// The per-id values live in pages of PAGE ids (the first page grows up to one), so the table
// grows by a page at a time: a doubling array held twice the ids in use and, while it was copied,
// old and new together (with a million hashes in the ghost lists, 64 MB for 38). Three doubles per
// id were 24 bytes; 16 took 12 MB off serve's peak on a stream of new blocks (1.4 M ids).

import type { HashKey } from '../../shared/events';
import { decimalKeyText } from '../../shared/hash-list';

/** An empty table slot / no id. */
const EMPTY = -1;
const FIRST_SLOTS = 1024;
const TWO_32 = 2 ** 32;
/** Bytes per id: lo (a double), then hi and the caller's payload (32-bit words). */
const ID_BYTES = 16;
/** hi of an id whose key is kept in `other`; hi of a decimal key kept here is below it. */
const OTHER_HI = 0xffffffff;
/** his[i] of a key findAll reads as text (see keyPartsInto). */
export const TEXT_KEY = OTHER_HI;
const PAGE_BITS = 16;
/** Ids per page. */
export const HASH_IDS_PAGE = 1 << PAGE_BITS;
const PAGE_MASK = HASH_IDS_PAGE - 1;
const FIRST_PAGE_IDS = 1024;
/**
 * The table grows once more than this share of its slots is used (then it is half that full):
 * a miss, the common look-up of a new hash, probes about 1/(1-load)^2 / 2 slots of 8 bytes, most
 * in one cache line, and a slot costs 8 bytes.
 */
const MAX_LOAD = 0.75;
/**
 * Keys per findAll: enough for their reads to overlap, few enough that what the reads brought into
 * the cache is still there when the keys are looked up.
 */
export const FIND_ALL_KEYS = 256;

/** The parts of a canonical decimal key (see HashIds), or null: what parseDecimalKey reads. */
export interface DecimalParts {
  hi: number;
  lo: number;
}

/**
 * Reads key as a canonical decimal of at most 20 digits (no sign, no leading zero) into out's hi
 * (the digits before the last ten) and lo (the last ten); false when it is no such decimal.
 */
export function parseDecimalKey(key: string, out: DecimalParts): boolean {
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
  out.hi = hi;
  out.lo = lo;
  return true;
}

// The canonical decimal text of parts read by parseDecimalKey: shared with the decoder's lists.
export { decimalKeyText };

/**
 * Reads key into his[i], los[i] as findAll takes it: its decimal parts, or TEXT_KEY in his[i] when
 * it is null or no canonical decimal that fits (then findAll reads the key itself).
 */
export function keyPartsInto(
  key: HashKey | null,
  his: Float64Array,
  los: Float64Array,
  i: number,
): void {
  if (key !== null && parseDecimalKey(key, read) && read.hi < OTHER_HI) {
    his[i] = read.hi;
    los[i] = read.lo;
  } else his[i] = OTHER_HI;
}
const read: DecimalParts = { hi: 0, lo: 0 };

/** Hash keys to ids and back. */
export class HashIds {
  /** Pairs (id, check) per slot; check is 32 bits of the key's mix, compared before the key. */
  private table = new Int32Array(2 * FIRST_SLOTS).fill(EMPTY);
  private mask = FIRST_SLOTS - 1;
  private shift = 32 - Math.log2(FIRST_SLOTS);
  private used = 0;
  private grownAt = Math.floor(FIRST_SLOTS * MAX_LOAD);
  /** Per id by page, two views of one buffer: lo at [2 * i] of los; hi, payload at [4 * i + 2, 3]. */
  private los: Float64Array[] = [];
  private words: Uint32Array[] = [];
  /** Keys that are not canonical decimals, both ways. */
  private readonly other = new Map<HashKey, number>();
  private readonly otherKeys = new Map<number, HashKey>();
  /** The last key parse() read (null when it was no canonical decimal): its parts and mix. */
  private parsed: HashKey | null = null;
  private readonly parts: DecimalParts = { hi: 0, lo: 0 };
  private mix = 0;
  /** Scratch parts of compareKeys' two ids and of delete's (no allocation per call). */
  private readonly partsA: DecimalParts = { hi: 0, lo: 0 };
  private readonly partsB: DecimalParts = { hi: 0, lo: 0 };
  /** The last findAll's mixes of its decimal keys, and the sum of its reads. */
  private readonly batchMix = new Int32Array(FIND_ALL_KEYS);
  private touched = 0;

  constructor() {
    this.addPage(FIRST_PAGE_IDS, 0);
  }

  /** The id of key, or -1. */
  find(key: HashKey): number {
    if (!this.parse(key)) return this.other.get(key) ?? EMPTY;
    return this.probe(this.parts.hi, this.parts.lo, this.mix);
  }

  /**
   * Writes the id of key i (or -1) to out[i] for i in from .. to - 1 (at most FIND_ALL_KEYS), as
   * find() would: key i is the decimal with parts his[i], los[i], or, where his[i] is TEXT_KEY,
   * keys[i] (-1 for a null). Every key's home slot and row are read first, then each is looked
   * up: the reads of different keys do not wait for one another, so their cache misses overlap,
   * where one find() after another waits for each in turn (on a table of millions, half the time
   * a key).
   */
  findAll(
    his: Float64Array,
    los: Float64Array,
    keys: readonly (HashKey | null)[],
    from: number,
    to: number,
    out: Int32Array,
  ): void {
    if (to - from > FIND_ALL_KEYS)
      throw new RangeError(`findAll of more than ${FIND_ALL_KEYS} keys`);
    const mixes = this.batchMix;
    let touched = 0;
    for (let i = from; i < to; i += 1) {
      const hi = his[i] as number;
      if (hi === OTHER_HI) continue;
      const mix = mixOf(hi, los[i] as number);
      mixes[i - from] = mix;
      touched += this.touch(mix);
    }
    // Kept so that the reads above are not dropped as unused.
    this.touched = touched;
    for (let i = from; i < to; i += 1) {
      const hi = his[i] as number;
      if (hi !== OTHER_HI) out[i] = this.probe(hi, los[i] as number, mixes[i - from] as number);
      else {
        const key = keys[i] as HashKey | null;
        out[i] = key === null ? EMPTY : (this.other.get(key) ?? EMPTY);
      }
    }
  }

  /** The id of the canonical decimal key with these parts (parseDecimalKey's), or -1. */
  findParts(hi: number, lo: number): number {
    if (hi >= OTHER_HI) return this.other.get(decimalKeyText(hi, lo)) ?? EMPTY;
    return this.probe(hi, lo, mixOf(hi, lo));
  }

  /** The id of the decimal key with these parts and mix, or -1 (a small function: inlined). */
  private probe(hi: number, lo: number, mix: number): number {
    const table = this.table;
    for (let i = mix >>> this.shift; ; i = (i + 1) & this.mask) {
      const id = table[2 * i] as number;
      if (id === EMPTY) return EMPTY;
      if (table[2 * i + 1] !== mix) continue;
      const p = id >>> PAGE_BITS;
      const at = id & PAGE_MASK;
      if (
        (this.los[p] as Float64Array)[2 * at] === lo &&
        (this.words[p] as Uint32Array)[4 * at + 2] === hi
      )
        return id;
    }
  }

  /** Reads the home slot of a key with this mix and the row of the id there (for findAll). */
  private touch(mix: number): number {
    const id = this.table[2 * (mix >>> this.shift)] as number;
    if (id === EMPTY) return 0;
    return (this.words[id >>> PAGE_BITS] as Uint32Array)[4 * (id & PAGE_MASK) + 2] as number;
  }

  /** Gives the decimal with these parts (which has none) the id, an unused one of the caller's. */
  setParts(hi: number, lo: number, id: number): void {
    if (hi >= OTHER_HI) return this.set(decimalKeyText(hi, lo), id);
    this.pageFor(id);
    const p = id >>> PAGE_BITS;
    const at = id & PAGE_MASK;
    (this.los[p] as Float64Array)[2 * at] = lo;
    (this.words[p] as Uint32Array)[4 * at + 2] = hi;
    if (this.used + 1 > this.grownAt) this.growTable();
    this.place(id, mixOf(hi, lo));
  }

  /** Gives key (which find() just said has none) the id, an unused one chosen by the caller. */
  set(key: HashKey, id: number): void {
    this.pageFor(id);
    const p = id >>> PAGE_BITS;
    const at = id & PAGE_MASK;
    const words = this.words[p] as Uint32Array;
    // A new block's set() follows the find() of its key: its parts are read already.
    if (key !== this.parsed && !this.parse(key)) {
      this.other.set(key, id);
      this.otherKeys.set(id, key);
      words[4 * at + 2] = OTHER_HI;
      return;
    }
    (this.los[p] as Float64Array)[2 * at] = this.parts.lo;
    words[4 * at + 2] = this.parts.hi;
    if (this.used + 1 > this.grownAt) this.growTable();
    this.place(id, this.mix);
  }

  /** The caller's payload of id, an integer in 0 .. 2^32 - 1 (0 for an id never given one). */
  payload(id: number): number {
    return (this.words[id >>> PAGE_BITS] as Uint32Array)[4 * (id & PAGE_MASK) + 3] as number;
  }

  /** Sets the payload of id (an id set() gave) to an integer in 0 .. 2^32 - 1. */
  setPayload(id: number, value: number): void {
    (this.words[id >>> PAGE_BITS] as Uint32Array)[4 * (id & PAGE_MASK) + 3] = value;
  }

  /** The key of id. */
  keyOf(id: number): HashKey {
    const p = id >>> PAGE_BITS;
    const at = id & PAGE_MASK;
    const hi = (this.words[p] as Uint32Array)[4 * at + 2] as number;
    if (hi === OTHER_HI) return this.otherKeys.get(id) as HashKey;
    return decimalKeyText(hi, (this.los[p] as Float64Array)[2 * at] as number);
  }

  /** Reads id's key into out when it is a canonical decimal; false when it is kept as text. */
  keyParts(id: number, out: DecimalParts): boolean {
    const p = id >>> PAGE_BITS;
    const at = id & PAGE_MASK;
    const hi = (this.words[p] as Uint32Array)[4 * at + 2] as number;
    if (hi === OTHER_HI) return false;
    out.hi = hi;
    out.lo = (this.los[p] as Float64Array)[2 * at] as number;
    return true;
  }

  /**
   * Orders the keys of ids a and b as their texts compare (JS `<`), without making the texts when
   * both are decimals: a digit string's order is that of its digits right-padded with zeros to 20,
   * then of its length (a prefix comes first).
   */
  compareKeys(a: number, b: number): number {
    const A = this.partsA;
    const B = this.partsB;
    if (!this.keyParts(a, A) || !this.keyParts(b, B)) {
      const ka = this.keyOf(a);
      const kb = this.keyOf(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    }
    const dA = A.hi === 0 ? digits(A.lo) : digits(A.hi) + 10;
    const dB = B.hi === 0 ? digits(B.lo) : digits(B.hi) + 10;
    const headA = padHead(A.hi, A.lo, dA);
    const headB = padHead(B.hi, B.lo, dB);
    if (headA !== headB) return headA < headB ? -1 : 1;
    const tailA = padTail(A.hi, A.lo, dA);
    const tailB = padTail(B.hi, B.lo, dB);
    if (tailA !== tailB) return tailA < tailB ? -1 : 1;
    return dA - dB;
  }

  /** Forgets id (and its key). */
  delete(id: number): void {
    // Read into a scratch of its own: `parts` stays the last parse()'s, for a set() that follows.
    const parts = this.partsA;
    if (!this.keyParts(id, parts)) {
      this.other.delete(this.otherKeys.get(id) as HashKey);
      this.otherKeys.delete(id);
      return;
    }
    const table = this.table;
    const mask = this.mask;
    let i = mixOf(parts.hi, parts.lo) >>> this.shift;
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

  /** Bytes held by the table and the per-id values (for the memory figures). */
  bytes(): number {
    let n = this.table.byteLength;
    for (const p of this.los) n += p.byteLength;
    return n;
  }

  /**
   * Reads key as a canonical decimal of at most 20 digits into parts and mix; false if not, or if
   * its hi does not fit a 32-bit word below OTHER_HI (past u64: such a key is kept in `other`).
   */
  private parse(key: HashKey): boolean {
    this.parsed = null;
    if (!parseDecimalKey(key, this.parts) || this.parts.hi >= OTHER_HI) return false;
    this.mix = mixOf(this.parts.hi, this.parts.lo);
    this.parsed = key;
    return true;
  }

  /** Makes sure id has its page: the first one grown (doubling up to a whole one), or new ones. */
  private pageFor(id: number): void {
    const p = id >>> PAGE_BITS;
    if (p === 0) {
      const first = this.words[0] as Uint32Array;
      if (4 * id < first.length) return;
      // The first page grows (doubling) up to a whole one: a small session stays small.
      let n = first.length / 4;
      while (n <= id) n *= 2;
      this.addPage(Math.min(n, HASH_IDS_PAGE), 0);
      (this.words[0] as Uint32Array).set(first);
      return;
    }
    while (this.words.length <= p) {
      if ((this.words[0] as Uint32Array).length < 4 * HASH_IDS_PAGE) this.pageFor(PAGE_MASK);
      this.addPage(HASH_IDS_PAGE, this.words.length);
    }
  }

  /**
   * Puts a page of `ids` ids at index `at` (replacing the one there): one buffer, seen as doubles
   * (lo) and as 32-bit words (hi, payload; the copy of a grown page goes through these).
   */
  private addPage(ids: number, at: number): void {
    const buffer = new ArrayBuffer(ID_BYTES * ids);
    this.los[at] = new Float64Array(buffer);
    this.words[at] = new Uint32Array(buffer);
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
    this.grownAt = Math.floor(slots * MAX_LOAD);
    for (let i = 0; i < old.length; i += 2) {
      const id = old[i] as number;
      if (id !== EMPTY) this.place(id, old[i + 1] as number);
    }
  }
}

/** Decimal digits of n, an integer in 1 .. 10^10 - 1 (0 has one). */
function digits(n: number): number {
  let d = 1;
  for (let p = 10; p <= n; p *= 10) d += 1;
  return d;
}

/** The first ten digits of the key's text right-padded with zeros to 20 (d: its length). */
function padHead(hi: number, lo: number, d: number): number {
  if (hi === 0) return lo * 10 ** (10 - d);
  const h = d - 10;
  return hi * 10 ** (10 - h) + Math.floor(lo / 10 ** h);
}

/** The last ten digits of the key's text right-padded with zeros to 20. */
function padTail(hi: number, lo: number, d: number): number {
  if (hi === 0) return 0;
  const h = d - 10;
  return (lo % 10 ** h) * 10 ** (10 - h);
}

/** 32 well-mixed bits of a decimal key's parts (murmur3's finalizer over both halves). */
export function mixOf(hi: number, lo: number): number {
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
