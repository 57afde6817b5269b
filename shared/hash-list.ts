// The block hashes of a store or a removal: their text (events.ts HashKey), or, as the wire
// decoder reads u64 hashes on the live path, their canonical decimal parts, with no text made. A
// hash's text cost more than everything the model and the analysis then did with it (a BigInt and
// its decimal, 60 to 140 ns, then parsed back to two numbers, 47 to 85 ns), and the live path
// needs it nowhere: the hash-id table takes the parts, the recording writes their digits.

import type { HashKey } from './events';

/**
 * u64 hashes as the parts of their canonical decimal: hash i is hi * 10^10 + lo, where hi and lo
 * (both below 10^10, hi below 2^31) are parts[2 * i] and parts[2 * i + 1]. A class, so a
 * structured clone (a worker's or a port's message) would lose it: records stay in the thread
 * that decoded them, and what leaves it goes as event lines or JSON (toJSON writes the texts).
 */
export class DecimalHashes {
  readonly length: number;

  constructor(readonly parts: readonly number[]) {
    this.length = parts.length / 2;
  }

  hi(i: number): number {
    return this.parts[2 * i] as number;
  }

  lo(i: number): number {
    return this.parts[2 * i + 1] as number;
  }

  /** The text of hash i. */
  key(i: number): HashKey {
    return decimalKeyText(this.hi(i), this.lo(i));
  }

  /** Every hash's text. */
  keys(): HashKey[] {
    const out = new Array<HashKey>(this.length);
    for (let i = 0; i < this.length; i += 1) out[i] = this.key(i);
    return out;
  }

  /** JSON.stringify writes the texts, as of a list of keys. */
  toJSON(): HashKey[] {
    return this.keys();
  }
}

/** A store's or a removal's hashes: their texts, or their decimal parts. */
export type HashList = readonly HashKey[] | DecimalHashes;

/** The texts of a list (the list itself when it holds texts). */
export function hashTexts(list: HashList): readonly HashKey[] {
  return list instanceof DecimalHashes ? list.keys() : list;
}

/** The text of hash i of a list. */
export function hashText(list: HashList, i: number): HashKey {
  return list instanceof DecimalHashes ? list.key(i) : (list[i] as HashKey);
}

/** The canonical decimal text of the parts hi * 10^10 + lo. */
export function decimalKeyText(hi: number, lo: number): string {
  return hi === 0 ? `${lo}` : `${hi}${`${lo}`.padStart(10, '0')}`;
}
