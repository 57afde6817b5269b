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

/** floor(v / d) for safe integers v >= 0 and d > 0. */
function wholeQuotient(v: number, d: number): number {
  const q = Math.floor(v / d);
  // v / d is rounded to a double: step back where the rounding crossed a multiple.
  return v - q * d < 0 ? q - 1 : q;
}

/** Writes the safe integer v >= 0 in decimal at buf[p]; returns the position after it. */
export function writeUintDecimal(buf: Uint8Array, p: number, v: number): number {
  if (v < E8) return writeShort(buf, p, v);
  // Below 2^53 < 10^16: at most eight digits above the last eight.
  const high = wholeQuotient(v, E8);
  p = writeShort(buf, p, high);
  write8(buf, p, v - high * E8);
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

const E6 = 1000000;
/** Below it a double's spacing is under 10^-6 (2^32: spacing 2^-20), see writeMicrosDecimal. */
const MICROS_EXACT_BELOW = 4294967296;

/**
 * Writes v as String(v) does when 1 <= v < 2^32 and String(v) has at most six decimals (event
 * times: epoch seconds to the microsecond); returns the end, or -1 with nothing written for any
 * other v (the caller prints String(v)). String(v) costs a shortest-digits search and a string
 * per batch, a tenth of capture's fast path.
 *
 * Why it is String(v): k = round(v * 10^6) is the right integer whenever v has at most six
 * decimals (the product is off by under 0.5 below 2^32), and k / 10^6 === v checks that the
 * decimal k * 10^-6 reads back as v. Below 2^32 the spacing of doubles is under 10^-6, so no
 * other decimal of as few digits reads back as v: the digits of k, trailing zeros dropped, are
 * the shortest that do, which is what String(v) prints (in plain notation below 10^21).
 */
export function writeMicrosDecimal(buf: Uint8Array, p: number, v: number): number {
  if (!(v >= 1 && v < MICROS_EXACT_BELOW)) return -1;
  const k = Math.round(v * E6);
  if (k / E6 !== v) return -1;
  const whole = wholeQuotient(k, E6);
  const micros = k - whole * E6;
  p = writeUintDecimal(buf, p, whole);
  if (micros === 0) return p;
  buf[p] = 0x2e;
  // Six digits, then back over the trailing zeros (String(v) prints none).
  const hi = (micros / 10000) | 0;
  const rest = micros - hi * 10000;
  buf[p + 1] = PAIRS[2 * hi] as number;
  buf[p + 2] = PAIRS[2 * hi + 1] as number;
  write4(buf, p + 3, rest);
  let end = p + 7;
  while (buf[end - 1] === 0x30) end--;
  return end;
}
