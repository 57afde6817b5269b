// A set of hash keys for the many small-to-large sets the hot prefixes keep (the distinct first
// hashes of each parent's stores). A canonical decimal key (hash-ids.ts) is held as its two parts
// in an open-addressing table of doubles, other keys in a Set beside it. A Set<string> held each
// first hash as a string (about 40 bytes) plus its entry: 11 MB of serve's JS heap for 153,000
// first hashes on a stream with shared prefixes; a decimal takes 16 to 32 bytes here, no string.

import type { HashKey } from '../../shared/events';
import { decimalKeyText, mixOf, parseDecimalKey, type DecimalParts } from './hash-ids';

/** A hash as its text, or as the parts of its canonical decimal (parseDecimalKey's). */
export type KeyRef = HashKey | DecimalParts;

/** hi of an empty slot (a key's hi is never negative). */
const EMPTY = -1;
const FIRST_SLOTS = 4;

/** Distinct hash keys; insertion only (the hot prefixes drop a whole set at once). */
export class HashKeySet {
  /** Per slot hi, lo; hi EMPTY for none. */
  private slots = new Float64Array(2 * FIRST_SLOTS).fill(EMPTY);
  private mask = FIRST_SLOTS - 1;
  private decimals = 0;
  /** Keys that are no canonical decimals. */
  private other: Set<HashKey> | null = null;
  private static readonly parts: DecimalParts = { hi: 0, lo: 0 };

  constructor(keys: Iterable<KeyRef> = []) {
    for (const k of keys) this.add(k);
  }

  get size(): number {
    return this.decimals + (this.other?.size ?? 0);
  }

  /** Adds key (a text, or a canonical decimal's parts); false when it was in the set already. */
  add(key: KeyRef): boolean {
    const p = HashKeySet.parts;
    if (typeof key !== 'string') return this.addParts(key.hi, key.lo);
    if (parseDecimalKey(key, p)) return this.addParts(p.hi, p.lo);
    this.other ??= new Set();
    if (this.other.has(key)) return false;
    this.other.add(key);
    return true;
  }

  has(key: KeyRef): boolean {
    const p = HashKeySet.parts;
    if (typeof key !== 'string') return this.slots[2 * this.slotOf(key.hi, key.lo)] !== EMPTY;
    if (!parseDecimalKey(key, p)) return this.other?.has(key) ?? false;
    return this.slots[2 * this.slotOf(p.hi, p.lo)] !== EMPTY;
  }

  private addParts(hi: number, lo: number): boolean {
    const i = this.slotOf(hi, lo);
    if (this.slots[2 * i] !== EMPTY) return false;
    this.slots[2 * i] = hi;
    this.slots[2 * i + 1] = lo;
    this.decimals += 1;
    // At most three quarters full: a miss (the common case, a new first hash) probes few slots.
    if (4 * this.decimals > 3 * (this.mask + 1)) this.grow();
    return true;
  }

  /** The keys, decimals first (in no particular order). */
  *[Symbol.iterator](): IterableIterator<HashKey> {
    const s = this.slots;
    for (let i = 0; i < s.length; i += 2)
      if (s[i] !== EMPTY) yield decimalKeyText(s[i] as number, s[i + 1] as number);
    if (this.other !== null) yield* this.other;
  }

  /** The slot holding (hi, lo), or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    const s = this.slots;
    for (let i = mixOf(hi, lo) & this.mask; ; i = (i + 1) & this.mask) {
      const h = s[2 * i] as number;
      if (h === EMPTY || (h === hi && s[2 * i + 1] === lo)) return i;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(2 * old.length).fill(EMPTY);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) {
      const hi = old[i] as number;
      if (hi === EMPTY) continue;
      const at = this.slotOf(hi, old[i + 1] as number);
      this.slots[2 * at] = hi;
      this.slots[2 * at + 1] = old[i + 1] as number;
    }
  }
}
