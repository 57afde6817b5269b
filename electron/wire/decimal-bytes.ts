// Integers written as decimal ASCII straight into a byte buffer: no string is made on the way,
// and a u64 above 2^53 needs no BigInt (capture prints millions of them). A value is cut into
// 8-digit parts (each below 2^27, int32 arithmetic) and each part into two groups of four digits,
// each group one table look-up and one 4-byte DataView store. Byte stores were most of the cost
// (8 of them per 8 digits, each bounds-checked: 49 ns per u64 against 24 ns this way).

/** "0000" .. "9999": the four ASCII digits of each x < 10^4 as one little-endian u32. */
const QUADS = new Uint32Array(10000);
for (let x = 0; x < 10000; x++) {
  const d = String(x).padStart(4, '0');
  // The first digit in the lowest byte: a little-endian store puts it first in memory.
  QUADS[x] =
    d.charCodeAt(0) | (d.charCodeAt(1) << 8) | (d.charCodeAt(2) << 16) | (d.charCodeAt(3) << 24);
}
/** "00" .. "99": the two ASCII digits of each x < 100 as one little-endian u16. */
const PAIRS = new Uint16Array(100);
for (let x = 0; x < 100; x++) PAIRS[x] = (0x30 + Math.floor(x / 10)) | ((0x30 + (x % 10)) << 8);

/** Writes the int32 0 <= x < 10^4 as exactly four digits at p. */
function write4(v: DataView, p: number, x: number): void {
  v.setUint32(p, QUADS[x] as number, true);
}

/** Writes the int32 0 <= x < 10^8 as exactly eight digits (zero-padded) at p. */
function write8(v: DataView, p: number, x: number): void {
  const hi = (x / 10000) | 0;
  v.setUint32(p, QUADS[hi] as number, true);
  v.setUint32(p + 4, QUADS[x - hi * 10000] as number, true);
}

/** Writes the int32 0 <= x < 10^4 in as many digits as it has at p; returns the end. */
function writeLead(v: DataView, p: number, x: number): number {
  if (x >= 1000) {
    write4(v, p, x);
    return p + 4;
  }
  if (x >= 100) {
    const a = (x / 100) | 0;
    v.setUint8(p, 0x30 + a);
    v.setUint16(p + 1, PAIRS[x - a * 100] as number, true);
    return p + 3;
  }
  if (x >= 10) {
    v.setUint16(p, PAIRS[x] as number, true);
    return p + 2;
  }
  v.setUint8(p, 0x30 + x);
  return p + 1;
}

/** Writes the int32 0 <= x < 10^8 in as many digits as it has at p; returns the end. */
function writeShort(v: DataView, p: number, x: number): number {
  if (x < 10000) return writeLead(v, p, x);
  const hi = (x / 10000) | 0;
  p = writeLead(v, p, hi);
  write4(v, p, x - hi * 10000);
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

/** Writes the safe integer x >= 0 in decimal at p of the view; returns the position after it. */
export function writeUintDecimalAt(v: DataView, p: number, x: number): number {
  if (x < E8) return writeShort(v, p, x | 0);
  // Below 2^53 < 10^16: at most eight digits above the last eight.
  const high = wholeQuotient(x, E8);
  p = writeShort(v, p, high | 0);
  write8(v, p, (x - high * E8) | 0);
  return p + 8;
}

/**
 * Writes the unsigned 64-bit integer hi * 2^32 + lo (hi, lo: u32) in decimal at p of the view,
 * exactly; returns the position after it (at most 20 digits).
 */
export function writeU64DecimalAt(v: DataView, p: number, hi: number, lo: number): number {
  // Below 2^53 a double holds the value exactly.
  if (hi < 0x200000) return writeUintDecimalAt(v, p, hi * TWO_POW_32 + lo);
  // Above: x = q * 10^8 + r. The double quotient is within one of q (q < 2^38); r is exact
  // modulo 2^32 (x's low limb less q * 10^8's: `q | 0` is q's low 32 bits), and being near
  // [0, 10^8) it is exact as an int32.
  let q = Math.floor((hi * TWO_POW_32 + lo) / E8);
  let r = (lo - Math.imul(q | 0, E8)) | 0;
  while (r < 0) {
    q--;
    r += E8;
  }
  while (r >= E8) {
    q++;
    r -= E8;
  }
  // q < 2^64 / 10^8: its digits above the last eight are below 1845 (q / 10^8 < 2^11 is exact
  // enough that floor() cannot cross a whole number).
  const top = Math.floor(q / E8);
  const mid = (q - top * E8) | 0;
  if (top > 0) {
    p = writeLead(v, p, top);
    write8(v, p, mid);
    p += 8;
  } else p = writeShort(v, p, mid);
  write8(v, p, r);
  return p + 8;
}

/**
 * Writes the canonical decimal hi * 10^10 + lo (the parts of shared/hash-list.ts: hi < 2^31,
 * lo < 10^10) at p of the view; returns the position after it.
 */
export function writeDecimalPartsAt(v: DataView, p: number, hi: number, lo: number): number {
  if (hi === 0) return writeUintDecimalAt(v, p, lo);
  p = writeUintDecimalAt(v, p, hi);
  // lo as exactly ten digits: two, then eight.
  const top = wholeQuotient(lo, E8);
  v.setUint16(p, PAIRS[top] as number, true);
  write8(v, p + 2, (lo - top * E8) | 0);
  return p + 10;
}

/** The last buffer given to the byte-array forms, and a view of it (callers keep to one). */
let viewed: Uint8Array | null = null;
let view: DataView = new DataView(new ArrayBuffer(0));

/**
 * A DataView of `buf`, kept while the same buffer comes back: a writer that fills one buffer
 * makes one view for it, not one per number.
 */
export function viewOf(buf: Uint8Array): DataView {
  if (buf !== viewed) {
    viewed = buf;
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return view;
}

/** Writes the safe integer x >= 0 in decimal at buf[p]; returns the position after it. */
export function writeUintDecimal(buf: Uint8Array, p: number, x: number): number {
  return writeUintDecimalAt(viewOf(buf), p, x);
}

const E6 = 1000000;
/** Below it a double's spacing is under 10^-6 (2^32: spacing 2^-20), see writeMicrosDecimalAt. */
const MICROS_EXACT_BELOW = 4294967296;

/**
 * Writes x at p of the view as String(x) does when 1 <= x < 2^32 and String(x) has at most six decimals (event
 * times: epoch seconds to the microsecond); returns the end, or -1 with nothing written for any
 * other x (the caller prints String(x)). String(x) costs a shortest-digits search and a string
 * per batch, a tenth of capture's fast path.
 *
 * Why it is String(x): k = round(x * 10^6) is the right integer whenever x has at most six
 * decimals (the product is off by under 0.5 below 2^32), and k / 10^6 === x checks that the
 * decimal k * 10^-6 reads back as x. Below 2^32 the spacing of doubles is under 10^-6, so no
 * other decimal of as few digits reads back as x: the digits of k, trailing zeros dropped, are
 * the shortest that do, which is what String(x) prints (in plain notation below 10^21).
 */
export function writeMicrosDecimalAt(v: DataView, p: number, x: number): number {
  if (!(x >= 1 && x < MICROS_EXACT_BELOW)) return -1;
  const k = Math.round(x * E6);
  if (k / E6 !== x) return -1;
  const whole = wholeQuotient(k, E6);
  const micros = k - whole * E6;
  p = writeUintDecimalAt(v, p, whole);
  if (micros === 0) return p;
  v.setUint8(p, 0x2e);
  // Six digits, then back over the trailing zeros (String(x) prints none).
  const hi = (micros / 10000) | 0;
  v.setUint16(p + 1, PAIRS[hi] as number, true);
  write4(v, p + 3, micros - hi * 10000);
  let end = p + 7;
  while (v.getUint8(end - 1) === 0x30) end--;
  return end;
}
