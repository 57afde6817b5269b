// A minimal msgpack writer with explicit widths, so the simulator's bytes match what msgspec
// writes: ints in their smallest form, u64 as 0xcf, timestamps always float64, bytes as bin.

const U32_LIMIT = 0x1_0000_0000n;
const U64_LIMIT = 0x1_0000_0000_0000_0000n;
const I64_MIN = -0x8000_0000_0000_0000n;

/** Appends msgpack values to a growing buffer. */
export class MsgpackWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initial = 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  nil(): void {
    this.u8(0xc0);
  }

  bool(v: boolean): void {
    this.u8(v ? 0xc3 : 0xc2);
  }

  /** An integer in msgpack's smallest encoding; bigints beyond 2^32 become uint64 / int64. */
  int(v: number | bigint): void {
    if (typeof v === 'bigint') {
      if (v >= 0n && v < U32_LIMIT) return this.int(Number(v));
      if (v < 0n && v >= -0x8000_0000n) return this.int(Number(v));
      if (v >= U64_LIMIT || v < I64_MIN) throw new RangeError(`integer out of 64-bit range: ${v}`);
      this.ensure(9);
      if (v >= 0n) {
        this.buf[this.pos] = 0xcf;
        this.buf.writeBigUInt64BE(v, this.pos + 1);
      } else {
        this.buf[this.pos] = 0xd3;
        this.buf.writeBigInt64BE(v, this.pos + 1);
      }
      this.pos += 9;
      return;
    }
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer: ${v}`);
    if (v >= 0) {
      if (v < 0x80) return this.u8(v);
      if (v < 0x100) {
        this.ensure(2);
        this.buf[this.pos] = 0xcc;
        this.buf[this.pos + 1] = v;
        this.pos += 2;
      } else if (v < 0x10000) {
        this.ensure(3);
        this.buf[this.pos] = 0xcd;
        this.buf.writeUInt16BE(v, this.pos + 1);
        this.pos += 3;
      } else if (v < 0x1_0000_0000) {
        this.ensure(5);
        this.buf[this.pos] = 0xce;
        this.buf.writeUInt32BE(v, this.pos + 1);
        this.pos += 5;
      } else this.int(BigInt(v));
      return;
    }
    if (v >= -0x20) return this.u8(0xe0 | (v + 0x20));
    if (v >= -0x80) {
      this.ensure(2);
      this.buf[this.pos] = 0xd0;
      this.buf.writeInt8(v, this.pos + 1);
      this.pos += 2;
    } else if (v >= -0x8000) {
      this.ensure(3);
      this.buf[this.pos] = 0xd1;
      this.buf.writeInt16BE(v, this.pos + 1);
      this.pos += 3;
    } else if (v >= -0x8000_0000) {
      this.ensure(5);
      this.buf[this.pos] = 0xd2;
      this.buf.writeInt32BE(v, this.pos + 1);
      this.pos += 5;
    } else this.int(BigInt(v));
  }

  float64(v: number): void {
    this.ensure(9);
    this.buf[this.pos] = 0xcb;
    this.buf.writeDoubleBE(v, this.pos + 1);
    this.pos += 9;
  }

  str(s: string): void {
    const len = Buffer.byteLength(s, 'utf8');
    this.header(len, 0xa0, 32, 0xd9, 0xda, 0xdb);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bin(b: Uint8Array): void {
    if (b.length < 0x100) {
      this.ensure(2);
      this.buf[this.pos] = 0xc4;
      this.buf[this.pos + 1] = b.length;
      this.pos += 2;
    } else if (b.length < 0x10000) {
      this.ensure(3);
      this.buf[this.pos] = 0xc5;
      this.buf.writeUInt16BE(b.length, this.pos + 1);
      this.pos += 3;
    } else {
      this.ensure(5);
      this.buf[this.pos] = 0xc6;
      this.buf.writeUInt32BE(b.length, this.pos + 1);
      this.pos += 5;
    }
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  array(n: number): void {
    this.header(n, 0x90, 16, null, 0xdc, 0xdd);
  }

  map(n: number): void {
    this.header(n, 0x80, 16, null, 0xde, 0xdf);
  }

  /** Fix-size header when n < fixLimit, else the 8/16/32-bit forms. */
  private header(
    n: number,
    fix: number,
    fixLimit: number,
    tag8: number | null,
    tag16: number,
    tag32: number,
  ): void {
    if (n < fixLimit) return this.u8(fix | n);
    if (tag8 !== null && n < 0x100) {
      this.ensure(2);
      this.buf[this.pos] = tag8;
      this.buf[this.pos + 1] = n;
      this.pos += 2;
    } else if (n < 0x10000) {
      this.ensure(3);
      this.buf[this.pos] = tag16;
      this.buf.writeUInt16BE(n, this.pos + 1);
      this.pos += 3;
    } else {
      this.ensure(5);
      this.buf[this.pos] = tag32;
      this.buf.writeUInt32BE(n, this.pos + 1);
      this.pos += 5;
    }
  }

  /** Start again, keeping the buffer. */
  reset(): void {
    this.pos = 0;
  }

  /** A copy of the bytes written so far. */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.pos));
  }
}
