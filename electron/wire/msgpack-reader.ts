// A minimal msgpack cursor for the KV event schema. It reads exactly what the decoder asks for,
// skips the rest without building values (token ids and extra keys are counted, never kept) and
// checks every declared length against the bytes that remain, so a hostile length fails at once.
// Error messages name offsets, lengths and expected types: never a value from the payload.

import { hashKeyFromBytes, hashKeyFromU64, u64DecimalParts } from './hash-key';
import { MsgpackError, SchemaError, typeName } from './wire-errors';

export { MsgpackError, SchemaError } from './wire-errors';

/** Hash kind bits, as collected in a batch's shape. */
export const HASH_INT = 1;
export const HASH_BYTES = 2;
export const HASH_NEGATIVE = 4;

const utf8 = new TextDecoder('utf-8');

/** Labels at most this long are interned (media, spec kinds, LoRA names are a few bytes). */
const LABEL_MAX = 24;
const LABEL_SLOTS = 64;
/**
 * The last label seen per slot (by length and end bytes): a medium or a spec kind repeats event
 * after event, and building its string again each time (a char at a time) was a tenth of the
 * decoder's allocation. Bounded: LABEL_SLOTS strings of LABEL_MAX bytes at most.
 */
const labelBytes: Uint8Array = new Uint8Array(LABEL_SLOTS * LABEL_MAX);
const labelLen: Int8Array = new Int8Array(LABEL_SLOTS).fill(-1);
const labelText: string[] = new Array<string>(LABEL_SLOTS).fill('');

// Eight bytes copied out for a float or a 64-bit int: one view for every read, where a DataView per
// payload was a measurable part of decoding a small batch.
const scratch = new DataView(new ArrayBuffer(8));

/**
 * Bytes of a msgpack int by its first byte, 0 for any other type: skipping token ids takes one
 * look-up an id, where a chain of comparisons mispredicted on ids of mixed widths (3.3 against
 * 5 ns an id of a real vocabulary's mix).
 */
const INT_BYTES = new Uint8Array(256);
for (let b = 0; b <= 0x7f; b++) INT_BYTES[b] = 1;
for (let b = 0xe0; b <= 0xff; b++) INT_BYTES[b] = 1;
for (const [b, size] of [
  [0xcc, 2],
  [0xcd, 3],
  [0xce, 5],
  [0xcf, 9],
  [0xd0, 2],
  [0xd1, 3],
  [0xd2, 5],
  [0xd3, 9],
] as const)
  INT_BYTES[b] = size;

export class MsgpackReader {
  readonly bytes: Uint8Array;
  readonly end: number;
  private dataView: DataView | null = null;
  pos = 0;
  /** HASH_* bits of every hash read so far. */
  hashKinds = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.end = bytes.byteLength;
  }

  /** A DataView over the payload, made on first use (the common reads go byte by byte). */
  get view(): DataView {
    const b = this.bytes;
    return (this.dataView ??= new DataView(b.buffer, b.byteOffset, b.byteLength));
  }

  /** The big-endian u32 at bytes[p] (the caller checked the bounds). */
  private be32(p: number): number {
    const b = this.bytes;
    return (
      (((b[p] as number) << 24) |
        ((b[p + 1] as number) << 16) |
        ((b[p + 2] as number) << 8) |
        (b[p + 3] as number)) >>>
      0
    );
  }

  /** The 8 bytes at bytes[p] in the scratch view (the caller checked the bounds). */
  private eight(p: number): DataView {
    const b = this.bytes;
    for (let i = 0; i < 8; i++) scratch.setUint8(i, b[p + i] as number);
    return scratch;
  }

  /**
   * Names no length read from the payload: in a corrupt batch that length may be the bytes of a
   * token id (a str32 header shifted onto one), and error texts reach files and the screen.
   */
  private truncated(): MsgpackError {
    return new MsgpackError(
      `truncated: the value at offset ${this.pos} needs more than the ${this.end - this.pos} bytes left (of ${this.end})`,
    );
  }

  /** The type byte at the cursor, without consuming it. */
  peek(): number {
    if (this.pos >= this.end) throw this.truncated();
    return this.bytes[this.pos] as number;
  }

  /** A SchemaError for the value at the cursor: `${what}: expected ${expected}, got <type>`. */
  mismatch(what: string, expected: string): SchemaError {
    const got = this.pos < this.end ? typeName(this.bytes[this.pos] as number) : 'nothing';
    return new SchemaError(`${what}: expected ${expected}, got ${got}`);
  }

  /** Consumes a nil and returns true, or returns false and leaves the cursor. */
  nil(): boolean {
    if (this.peek() === 0xc0) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** Checks that `count` entries of at least `minBytes` each can fit in what remains. */
  private fits(count: number, minBytes: number, headerAt: number): number {
    if (count * minBytes > this.end - this.pos) {
      throw new MsgpackError(
        `the container at offset ${headerAt} declares more entries than the ${this.end - this.pos} bytes left`,
      );
    }
    return count;
  }

  /** Array length at the cursor (consumed), or -1 when the value is not an array. */
  arrayHeader(): number {
    const at = this.pos;
    const b = this.peek();
    if (b >= 0x90 && b <= 0x9f) {
      this.pos++;
      return this.fits(b & 0x0f, 1, at);
    }
    if (b === 0xdc) return this.fits(this.u16(), 1, at);
    if (b === 0xdd) return this.fits(this.u32(), 1, at);
    return -1;
  }

  /** Map size at the cursor (consumed), or -1 when the value is not a map. */
  mapHeader(): number {
    const at = this.pos;
    const b = this.peek();
    if (b >= 0x80 && b <= 0x8f) {
      this.pos++;
      return this.fits(b & 0x0f, 2, at);
    }
    if (b === 0xde) return this.fits(this.u16(), 2, at);
    if (b === 0xdf) return this.fits(this.u32(), 2, at);
    return -1;
  }

  /** Length of the string at the cursor (header consumed, body not), or -1 when not a string. */
  strHeader(): number {
    const b = this.peek();
    let len: number;
    if (b >= 0xa0 && b <= 0xbf) {
      this.pos++;
      len = b & 0x1f;
    } else if (b === 0xd9) len = this.u8();
    else if (b === 0xda) len = this.u16();
    else if (b === 0xdb) len = this.u32();
    else return -1;
    if (this.pos + len > this.end) throw this.truncated();
    return len;
  }

  /** Decodes `len` bytes at the cursor as UTF-8 and consumes them. */
  strBody(len: number): string {
    const start = this.pos;
    this.pos += len;
    const bytes = this.bytes;
    if (len <= 24) {
      let out = '';
      for (let i = start; i < start + len; i++) {
        const c = bytes[i] as number;
        if (c >= 0x80) return utf8.decode(bytes.subarray(start, start + len));
        out += String.fromCharCode(c);
      }
      return out;
    }
    return utf8.decode(bytes.subarray(start, start + len));
  }

  /** True when the `len` bytes at the cursor equal `name` (an ASCII byte string). */
  bodyEquals(len: number, name: Uint8Array): boolean {
    if (len !== name.length) return false;
    const bytes = this.bytes;
    const start = this.pos;
    for (let i = 0; i < len; i++) if (bytes[start + i] !== name[i]) return false;
    return true;
  }

  /** A string, or null for nil. */
  strOrNull(what: string): string | null {
    if (this.nil()) return null;
    const len = this.strHeader();
    if (len < 0) throw this.mismatch(what, 'a string or nil');
    return len === 0 || len > LABEL_MAX ? this.strBody(len) : this.label(len);
  }

  /** The short string body at the cursor (consumed), the same string as last time it was seen. */
  private label(len: number): string {
    const bytes = this.bytes;
    const start = this.pos;
    const slot =
      (len * 7 + (bytes[start] as number) + (bytes[start + len - 1] as number)) & (LABEL_SLOTS - 1);
    const at = slot * LABEL_MAX;
    if (labelLen[slot] === len) {
      let i = 0;
      while (i < len && labelBytes[at + i] === bytes[start + i]) i++;
      if (i === len) {
        this.pos += len;
        return labelText[slot] as string;
      }
    }
    const text = this.strBody(len);
    labelBytes.set(bytes.subarray(start, start + len), at);
    labelLen[slot] = len;
    labelText[slot] = text;
    return text;
  }

  /** An integer that fits a JS number exactly (u64/i64 beyond 2^53 are refused). */
  int(what: string): number {
    const b = this.peek();
    if (b <= 0x7f) {
      this.pos++;
      return b;
    }
    if (b >= 0xe0) {
      this.pos++;
      return b - 0x100;
    }
    switch (b) {
      case 0xcc:
        return this.u8();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf:
      case 0xd3: {
        this.need(9);
        const v =
          b === 0xcf ? this.view.getBigUint64(this.pos + 1) : this.view.getBigInt64(this.pos + 1);
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
          throw new SchemaError(`${what}: expected an int within ±2^53, got a larger int`);
        }
        this.pos += 9;
        return Number(v);
      }
      case 0xd0:
        this.need(2);
        this.pos += 2;
        return this.view.getInt8(this.pos - 1);
      case 0xd1:
        this.need(3);
        this.pos += 3;
        return this.view.getInt16(this.pos - 2);
      case 0xd2:
        this.need(5);
        this.pos += 5;
        return this.view.getInt32(this.pos - 4);
      default:
        throw this.mismatch(what, 'an int');
    }
  }

  /** An int, or null for nil. */
  intOrNull(what: string): number | null {
    return this.nil() ? null : this.int(what);
  }

  /** A float or an int, as a number (a u64 beyond 2^53 is rounded: only used for ts). */
  number(what: string): number {
    const b = this.peek();
    if (b === 0xcb) {
      this.need(9);
      this.pos += 9;
      return this.eight(this.pos - 8).getFloat64(0);
    }
    if (b === 0xca) {
      this.need(5);
      this.pos += 5;
      return this.view.getFloat32(this.pos - 4);
    }
    if (b === 0xcf) {
      this.need(9);
      this.pos += 9;
      return Number(this.view.getBigUint64(this.pos - 8));
    }
    if (b === 0xd3) {
      this.need(9);
      this.pos += 9;
      return Number(this.view.getBigInt64(this.pos - 8));
    }
    return this.int(what);
  }

  /** A block hash as its canonical key: u64 / negative int in decimal, bytes in hex. */
  hashKey(what: string): string {
    const b = this.peek();
    if (b <= 0x7f) {
      this.pos++;
      this.hashKinds |= HASH_INT;
      return String(b);
    }
    switch (b) {
      case 0xcf: {
        this.need(9);
        const hi = this.be32(this.pos + 1);
        const lo = this.be32(this.pos + 5);
        this.pos += 9;
        this.hashKinds |= HASH_INT;
        return hashKeyFromU64(hi, lo);
      }
      case 0xce:
        this.hashKinds |= HASH_INT;
        return String(this.u32());
      case 0xcd:
        this.hashKinds |= HASH_INT;
        return String(this.u16());
      case 0xcc:
        this.hashKinds |= HASH_INT;
        return String(this.u8());
      case 0xd3: {
        this.need(9);
        const v = this.view.getBigInt64(this.pos + 1);
        this.pos += 9;
        this.hashKinds |= v < 0n ? HASH_NEGATIVE : HASH_INT;
        return v.toString();
      }
      case 0xc4:
      case 0xc5:
      case 0xc6: {
        const len = b === 0xc4 ? this.u8() : b === 0xc5 ? this.u16() : this.u32();
        this.need(len);
        this.pos += len;
        this.hashKinds |= HASH_BYTES;
        return hashKeyFromBytes(this.bytes, this.pos - len, this.pos);
      }
    }
    if (b >= 0xe0 || (b >= 0xd0 && b <= 0xd2)) {
      const v = this.int(what);
      this.hashKinds |= v < 0 ? HASH_NEGATIVE : HASH_INT;
      return String(v);
    }
    throw this.mismatch(what, 'an int or bytes hash');
  }

  /**
   * A u64 block hash at the cursor as its canonical decimal parts, written to out[at] and
   * out[at + 1] (shared/hash-list.ts); false, the cursor unmoved, for a hash of another kind.
   * It takes the widths hashKey's unsigned cases take (the decoder's fuzz checks that both modes
   * read every payload alike): one reader for both, its halves passed through fields, measured
   * about 0.15 µs a fixture message dearer on the live path.
   */
  u64HashParts(out: number[], at: number): boolean {
    const b = this.peek();
    let hi = 0;
    let lo: number;
    if (b <= 0x7f) {
      this.pos++;
      lo = b;
    } else if (b === 0xcf) {
      this.need(9);
      hi = this.be32(this.pos + 1);
      lo = this.be32(this.pos + 5);
      this.pos += 9;
    } else if (b === 0xce) lo = this.u32();
    else if (b === 0xcd) lo = this.u16();
    else if (b === 0xcc) lo = this.u8();
    else return false;
    this.hashKinds |= HASH_INT;
    u64DecimalParts(hi, lo, out, at);
    return true;
  }

  /** Skips an array of ints (token ids) and returns its length; no id is ever decoded. */
  skipIntArray(what: string): number {
    const n = this.arrayHeader();
    if (n < 0) throw this.mismatch(what, 'an array of ints');
    const bytes = this.bytes;
    const end = this.end;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      if (p >= end) {
        this.pos = p;
        throw this.truncated();
      }
      const size = INT_BYTES[bytes[p] as number] as number;
      if (size === 0) {
        this.pos = p;
        throw this.mismatch(`${what} entry`, 'an int');
      }
      p += size;
    }
    if (p > end) {
      this.pos = end;
      throw new MsgpackError(`truncated: ${what} runs past the end of ${end} bytes`);
    }
    this.pos = p;
    return n;
  }

  /** Skips one value of any type (iteratively: depth cannot blow the stack). */
  skip(): void {
    let pending = 1;
    while (pending > 0) {
      pending--;
      const b = this.peek();
      if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) {
        this.pos++;
        continue;
      }
      let n = this.arrayHeader();
      if (n >= 0) {
        pending += n;
        continue;
      }
      n = this.mapHeader();
      if (n >= 0) {
        pending += 2 * n;
        continue;
      }
      n = this.strHeader();
      if (n >= 0) {
        this.pos += n;
        continue;
      }
      this.pos += this.scalarSize(b);
      if (this.pos > this.end) {
        this.pos = this.end;
        throw new MsgpackError(`truncated: a value runs past the end of ${this.end} bytes`);
      }
    }
  }

  /** Total size of a non-container, non-string value starting with type byte `b`. */
  private scalarSize(b: number): number {
    switch (b) {
      case 0xcc:
      case 0xd0:
        return 2;
      case 0xcd:
      case 0xd1:
        return 3;
      case 0xce:
      case 0xd2:
      case 0xca:
        return 5;
      case 0xcf:
      case 0xd3:
      case 0xcb:
        return 9;
      case 0xd4:
        return 3;
      case 0xd5:
        return 4;
      case 0xd6:
        return 6;
      case 0xd7:
        return 10;
      case 0xd8:
        return 18;
      case 0xc4:
        return this.sizedBody(1, 0);
      case 0xc5:
        return this.sizedBody(2, 0);
      case 0xc6:
        return this.sizedBody(4, 0);
      case 0xc7:
        return this.sizedBody(1, 1);
      case 0xc8:
        return this.sizedBody(2, 1);
      case 0xc9:
        return this.sizedBody(4, 1);
      default:
        throw new MsgpackError(`reserved type byte 0xc1 at offset ${this.pos}`);
    }
  }

  /** Size of a bin/ext value with a `lenBytes` length field and `extra` bytes (ext type). */
  private sizedBody(lenBytes: number, extra: number): number {
    this.need(1 + lenBytes);
    const p = this.pos + 1;
    const len =
      lenBytes === 1
        ? this.view.getUint8(p)
        : lenBytes === 2
          ? this.view.getUint16(p)
          : this.view.getUint32(p);
    return 1 + lenBytes + extra + len;
  }

  /** Throws unless `n` bytes (type byte included) are left at the cursor. */
  need(n: number): void {
    if (this.pos + n > this.end) throw this.truncated();
  }

  private u8(): number {
    this.need(2);
    this.pos += 2;
    return this.bytes[this.pos - 1] as number;
  }

  private u16(): number {
    this.need(3);
    this.pos += 3;
    const b = this.bytes;
    return ((b[this.pos - 2] as number) << 8) | (b[this.pos - 1] as number);
  }

  private u32(): number {
    this.need(5);
    this.pos += 5;
    return this.be32(this.pos - 4);
  }
}
