// Canonical block-hash keys (shared/events.ts HashKey): u64 in exact decimal, negative ints as
// opaque decimal, raw-bytes digests in lowercase hex. Nothing here goes through a lossy JS number.

import type { HashKey } from '../../shared/events';
import { isIntHashKey } from '../../shared/int-hash-key';

// Its callers on the main side keep importing it from here, beside the other key kinds.
export { isIntHashKey };

const TWO_POW_21 = 0x200000;
const u64 = new DataView(new ArrayBuffer(8));

/** Decimal key of the unsigned 64-bit integer hi * 2^32 + lo (hi, lo: u32), exact. */
export function hashKeyFromU64(hi: number, lo: number): HashKey {
  // Below 2^53 a double holds the value exactly.
  if (hi < TWO_POW_21) return String(hi * 4294967296 + lo);
  // Above, a BigInt's decimal. Exact long division over limbs (no BigInt) was tried: it joins two
  // strings into a rope that every reader (a Map key, capture's byte copy) must flatten first,
  // and measured slower end to end than one flat string made here.
  u64.setUint32(0, hi);
  u64.setUint32(4, lo);
  return u64.getBigUint64(0).toString();
}

/**
 * The unsigned 64-bit integer hi * 2^32 + lo (hi, lo: u32) as the parts of its canonical decimal
 * (shared/hash-list.ts: x = out[at] * 10^10 + out[at + 1]), exact, with no BigInt or string.
 */
export function u64DecimalParts(hi: number, lo: number, out: number[], at: number): void {
  // With hi = a * 10^5 + b and 10^5 * 2^32 = 42949 * 10^10 + 6729600000, x is
  // a * 42949 * 10^10 + rest, where rest = a * 6729600000 + b * 2^32 + lo < 7.3e14 < 2^53.
  // rest / 10^10 is below 73,000, where doubles lie 1.5e-11 apart: a rest short of a multiple of
  // 10^10 by 1 or more is 1e-10 or more below it, so the rounded quotient's floor is exact.
  const a = Math.floor(hi / 100000);
  const rest = a * 6729600000 + (hi - a * 100000) * 4294967296 + lo;
  const q = Math.floor(rest / 1e10);
  out[at] = a * 42949 + q;
  out[at + 1] = rest - q * 1e10;
}

/** Decimal key of a bigint hash (u64 or negative), exact. */
export function hashKeyFromBigInt(value: bigint): HashKey {
  return value.toString(10);
}

/** Decimal key of a safe integer hash. Throws on a non-integer or unsafe number. */
export function hashKeyFromSafeInt(value: number): HashKey {
  if (!Number.isSafeInteger(value)) throw new RangeError('hash is not a safe integer');
  return String(value);
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex key of a raw-bytes hash (bytes[start, end)). */
export function hashKeyFromBytes(bytes: Uint8Array, start = 0, end = bytes.length): HashKey {
  let out = '';
  for (let i = start; i < end; i++) out += HEX[bytes[i] as number] as string;
  return out;
}

const NEGATIVE_RE = /^-[1-9][0-9]{0,18}$/;
const HEX_RE = /^(?:[0-9a-f]{2})+$/;

/** True when the key is the decimal form of a negative 64-bit integer (kept as an opaque key). */
export function isNegativeIntHashKey(key: string): boolean {
  return NEGATIVE_RE.test(key) && BigInt(key) >= -(2n ** 63n);
}

/**
 * True when the key looks like a bytes hash: even-length lowercase hex that is not a decimal int.
 * (Short all-digit byte strings are ambiguous; real digests are 32 bytes = 64 hex chars.)
 */
export function isBytesHashKey(key: string): boolean {
  return HEX_RE.test(key) && !isIntHashKey(key);
}

/** What kind of hash a key encodes, or null when it is not a canonical key. */
export function hashKeyKind(key: string): 'int' | 'negative-int' | 'bytes' | null {
  if (isIntHashKey(key)) return 'int';
  if (isNegativeIntHashKey(key)) return 'negative-int';
  if (HEX_RE.test(key)) return 'bytes';
  return null;
}

/** The integer value of an int key (u64 or negative), or null for a bytes / invalid key. */
export function hashKeyToBigInt(key: string): bigint | null {
  return isIntHashKey(key) || isNegativeIntHashKey(key) ? BigInt(key) : null;
}

/**
 * Canonical key from the text of a JSON integer (e.g. a JSONL capture read losslessly):
 * strips a leading '+' and leading zeros; null when it is not an integer in the u64/i64 range.
 */
export function hashKeyFromDecimalText(text: string): HashKey | null {
  const m = /^([+-]?)0*([0-9]+)$/.exec(text.trim());
  if (!m) return null;
  const digits = m[2] as string;
  const key = m[1] === '-' && digits !== '0' ? `-${digits}` : digits;
  return isIntHashKey(key) || isNegativeIntHashKey(key) ? key : null;
}
