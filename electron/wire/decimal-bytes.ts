// Integers written as decimal ASCII straight into a byte buffer: no string is made on the way,
// and a u64 above 2^53 needs no BigInt (capture prints millions of them). A value is cut into
// 8-digit parts (each below 2^27) and each part written four digits at a time, two from a
// table: int32 arithmetic with short chains of dependent divisions (a float division per digit,
// later a chain of one per digit pair, was most of the cost).

/** "00" .. "99" as ASCII pairs. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 0x30 + Math.floor(i / 10);
  PAIRS[2 * i + 1] = 0x30 + (i % 10);
}

/** Writes the int32 0 <= x < 10^4 as exactly four digits at buf[p]. */
function write4(buf: Uint8Array, p: number, x: number): void {
  const a = (x / 100) | 0;
  const b = x - a * 100;
  buf[p] = PAIRS[2 * a] as number;
  buf[p + 1] = PAIRS[2 * a + 1] as number;
  buf[p + 2] = PAIRS[2 * b] as number;
  buf[p + 3] = PAIRS[2 * b + 1] as number;
}

/** Writes the int32 0 <= x < 10^8 as exactly eight digits (zero-padded) at buf[p]. */
function write8(buf: Uint8Array, p: number, x: number): void {
  const hi = (x / 10000) | 0;
  write4(buf, p, hi);
  write4(buf, p + 4, x - hi * 10000);
}

/** Writes the int32 0 <= x < 10^8 in as many digits as it has at buf[p]; returns the end. */
function writeShort(buf: Uint8Array, p: number, x: number): number {
  if (x < 100) {
    if (x < 10) {
      buf[p] = 0x30 + x;
      return p + 1;
    }
    buf[p] = PAIRS[2 * x] as number;
    buf[p + 1] = PAIRS[2 * x + 1] as number;
    return p + 2;
  }
  if (x < 10000) {
    if (x < 1000) {
      const a = (x / 100) | 0;
      const b = x - a * 100;
      buf[p] = 0x30 + a;
      buf[p + 1] = PAIRS[2 * b] as number;
      buf[p + 2] = PAIRS[2 * b + 1] as number;
      return p + 3;
    }
    write4(buf, p, x);
    return p + 4;
  }
  const hi = (x / 10000) | 0;
  p = writeShort(buf, p, hi);
  write4(buf, p, x - hi * 10000);
  return p + 4;
}

const E8 = 100000000;
const TWO_POW_32 = 4294967296;

/** Writes the safe integer v >= 0 in decimal at buf[p]; returns the position after it. */
export function writeUintDecimal(buf: Uint8Array, p: number, v: number): number {
  if (v < E8) return writeShort(buf, p, v);
  // Below 2^53 < 10^16: at most eight digits above the last eight.
  let high = Math.floor(v / E8);
  let low = v - high * E8;
  // v / 10^8 is rounded to a double: step back where the rounding crossed a multiple.
  if (low < 0) {
    high--;
    low += E8;
  }
  p = writeShort(buf, p, high);
  write8(buf, p, low);
  return p + 8;
}

/**
 * Writes the unsigned 64-bit integer hi * 2^32 + lo (hi, lo: u32) in decimal at buf[p], exactly;
 * returns the position after it (at most 20 digits).
 */
export function writeU64Decimal(buf: Uint8Array, p: number, hi: number, lo: number): number {
  // Below 2^53 a double holds the value exactly.
  if (hi < 0x200000) return writeUintDecimal(buf, p, hi * TWO_POW_32 + lo);
  // Above: v = q * 10^8 + r. The double quotient is within one of q (q < 2^38); r is exact
  // modulo 2^32 (v's low limb less q * 10^8's), and being near [0, 10^8) it is exact as an int32.
  let q = Math.floor((hi * TWO_POW_32 + lo) / E8);
  const qLow = q - Math.floor(q / TWO_POW_32) * TWO_POW_32;
  let r = (lo - Math.imul(qLow, E8)) | 0;
  while (r < 0) {
    q--;
    r += E8;
  }
  while (r >= E8) {
    q++;
    r -= E8;
  }
  p = writeUintDecimal(buf, p, q);
  write8(buf, p, r);
  return p + 8;
}
