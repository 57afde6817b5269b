// Matching a user's hash query against canonical keys (decimal for integer hashes, hex for byte
// hashes): a prefix of the key text, and for a hex query also the integers whose hex it starts.
// Engines log integer hashes in decimal; a hex one comes from the user's own `hex(h)` (or a
// zero-padded 16-digit form), so a hex query matches those readings of the u64 as well.

import type { HashKey } from '../../shared/events';
import { isIntHashKey } from '../../shared/int-hash-key';

/** What a hash query matches: keys starting with `prefix`, the keys in `exact`, and the integer keys in `hexRanges`. */
export interface HashTerms {
  prefix: string;
  exact: string[];
  /**
   * Integer hashes whose hex starts with the query, as inclusive [low, high] pairs of canonical
   * decimal text: one per hex length the u64 can have (16^(n-L) values each). Empty unless the
   * query reads as hex (a `0x`, or a letter a-f) and fits a u64.
   */
  hexRanges: [string, string][];
}

const U64_HEX_DIGITS = 16;

/** The terms of what the user typed; null for an empty query. */
export function hashTerms(text: string | undefined): HashTerms | null {
  if (text === undefined) return null;
  let q = text.trim().toLowerCase();
  if (q === '') return null;
  const hexPrefixed = q.startsWith('0x');
  if (hexPrefixed) q = q.slice(2);
  const exact: string[] = [];
  const hexRanges: [string, string][] = [];
  // Digits alone read as decimal (what engines log) unless a 0x says hex.
  if (/^[0-9a-f]{1,16}$/.test(q) && (hexPrefixed || /[a-f]/.test(q))) {
    const p = BigInt('0x' + q);
    exact.push(p.toString(10));
    // `hex(h)` writes no leading zeros: a query that starts with 0 can only be the padded form.
    const lengths =
      q.startsWith('0') && q !== '0' ? [U64_HEX_DIGITS] : range(q.length, U64_HEX_DIGITS);
    for (const n of lengths) {
      const shift = BigInt(4 * (n - q.length));
      hexRanges.push([(p << shift).toString(10), (((p + 1n) << shift) - 1n).toString(10)]);
    }
  }
  return { prefix: q, exact, hexRanges };
}

/** A predicate over canonical hash keys built from what the user typed; null for an empty query. */
export function hashMatcher(text: string | undefined): ((key: HashKey) => boolean) | null {
  const terms = hashTerms(text);
  if (terms === null) return null;
  const { prefix, hexRanges } = terms;
  const exact = new Set(terms.exact);
  if (hexRanges.length === 0) return (key) => key.startsWith(prefix) || exact.has(key);
  // A hex query: an integer hash by the value its hex spells (never by its decimal digits, which
  // "0x12" does not mean), a byte hash by its hex text.
  return (key) => (isIntHashKey(key) ? inDecimalRanges(key, hexRanges) : key.startsWith(prefix));
}

/** Whether a canonical decimal key lies in one of the ranges. */
function inDecimalRanges(key: string, ranges: readonly [string, string][]): boolean {
  for (const [low, high] of ranges) {
    if (compareDecimal(low, key) <= 0 && compareDecimal(key, high) <= 0) return true;
  }
  return false;
}

/** Orders canonical decimal texts (no leading zeros) as the numbers they spell. */
function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** from, from + 1, ..., to. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
