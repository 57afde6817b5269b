// Integers written as decimal ASCII straight into a byte buffer: no string is made on the way,
// and a u64 above 2^53 needs no BigInt (capture prints millions of them). Digits go two at a time
// from a table, in int32 arithmetic (a float division per digit was most of the cost).

/** "00" .. "99" as ASCII pairs. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 0x30 + Math.floor(i / 10);
  PAIRS[2 * i + 1] = 0x30 + (i % 10);
}

/** Number of decimal digits of an int32 x >= 0. */
function digitsOf(x: number): number {
  if (x < 100000) return x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 10000 ? 4 : 5;
  return x < 1000000 ? 6 : x < 10000000 ? 7 : x < 100000000 ? 8 : x < 1000000000 ? 9 : 10;
}

/** Writes the int32 x >= 0 in exactly `digits` digits (zero-padded) ending at buf[end - 1]. */
function writeDigits(buf: Uint8Array, end: number, x: number, digits: number): void {
  let i = end;
  const start = end - digits;
  while (i - start >= 2) {
    const q = (x / 100) | 0;
    const pair = 2 * (x - q * 100);
    buf[--i] = PAIRS[pair + 1] as number;
    buf[--i] = PAIRS[pair] as number;
    x = q;
  }
  if (i > start) buf[--i] = 0x30 + (x % 10);
}

const TWO_POW_31 = 2147483648;
const E8 = 100000000;

/** Writes the safe integer v >= 0 in decimal at buf[p]; returns the position after it. */
export function writeUintDecimal(buf: Uint8Array, p: number, v: number): number {
  if (v < TWO_POW_31) {
    const n = digitsOf(v);
    writeDigits(buf, p + n, v, n);
    return p + n;
  }
  // Above 2^31: the digits above the last eight (below 2^53 / 10^8 < 2^27), then those eight.
  let high = Math.floor(v / E8);
  let low = v - high * E8;
  // v / 10^8 is rounded to a double: step back where the rounding crossed a multiple.
  if (low < 0) {
    high--;
    low += E8;
  }
  p = writeUintDecimal(buf, p, high);
  writeDigits(buf, p + 8, low, 8);
  return p + 8;
}

const MILLION = 1e6;

/**
 * Writes the unsigned 64-bit integer hi * 2^32 + lo (hi, lo: u32) in decimal at buf[p], exactly;
 * returns the position after it (at most 20 digits).
 */
export function writeU64Decimal(buf: Uint8Array, p: number, hi: number, lo: number): number {
  // Below 2^53 a double holds the value exactly.
  if (hi < 0x200000) return writeUintDecimal(buf, p, hi * 4294967296 + lo);
  // Above: value = q * 10^6 + r by long division over the two u32 limbs, every step below 2^53.
  const qHi = Math.floor(hi / MILLION);
  const t = (hi - qHi * MILLION) * 4294967296 + lo; // < 10^6 * 2^32 < 2^53
  let qLo = Math.floor(t / MILLION);
  let r = t - qLo * MILLION;
  // t / 10^6 is rounded to a double: step back or on by one where the rounding crossed.
  if (r < 0) {
    qLo--;
    r += MILLION;
  } else if (r >= MILLION) {
    qLo++;
    r -= MILLION;
  }
  // 2^53 / 10^6 <= q < 2^64 / 10^6: r takes all six of its digits.
  p = writeUintDecimal(buf, p, qHi * 4294967296 + qLo);
  writeDigits(buf, p + 6, r, 6);
  return p + 6;
}
