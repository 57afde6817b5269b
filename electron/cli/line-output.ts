// Output lines gathered as bytes in one buffer and written in chunks. Before, capture wrote one
// string per message: a UTF-8 conversion, a write request and a syscall each, the largest part
// of its CPU. Now lines are written straight into bytes and go out within FLUSH_MS or per
// CHUNK_BYTES. Bounded: when the stream behind (a pipe) cannot keep up, `blocked()`
// hands out a promise that the source awaits before it receives again, so ZeroMQ queues (and
// past its high-water mark drops, which shows as a gap) instead of this process's memory growing.

import { writeUintDecimal } from '../wire/decimal-bytes';

/** Where chunks go: process.stdout, or any writable stream. */
export interface ChunkStream {
  write(chunk: Uint8Array, cb?: (err?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  /** Bytes handed to the stream and not yet written (0: every chunk is out). */
  readonly writableLength: number;
}

/**
 * A write per this many bytes under load. Into a pipe, 256 KB writes took 0.3 µs less CPU per event
 * than 64 KB (unpaced `capture --json`, the median of 7 rounds, twice): fewer trips through the
 * stream and fewer wake-ups of the reader. 1 MB took no less.
 */
const CHUNK_BYTES = 256 * 1024;
/** Lines wait at most this long: a paced stream (a message every 100 µs) makes 50 writes/s. */
const FLUSH_MS = 20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class LineOutput {
  /** The buffer being filled; [start, pos) is written but not yet handed to the stream. */
  private buf: Buffer;
  private start = 0;
  private pos = 0;
  private scheduled = false;
  private pressure: Promise<void> | null = null;

  constructor(private readonly out: ChunkStream) {
    this.buf = Buffer.allocUnsafe(4 * CHUNK_BYTES);
  }

  /** Makes room for `n` more bytes: a full buffer is handed out and a new one started. */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    // Chunks handed out still point into the old buffer: start a new one, never overwrite it.
    this.buf = Buffer.allocUnsafe(Math.max(4 * CHUNK_BYTES, n));
    this.start = 0;
    this.pos = 0;
  }

  /** Appends bytes (pre-encoded constants). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    this.room(n);
    const buf = this.buf;
    const p = this.pos;
    // A loop beats TypedArray.set (a call into C++) for short runs.
    if (n > 48) buf.set(b, p);
    else for (let i = 0; i < n; i++) buf[p + i] = b[i] as number;
    this.pos = p + n;
  }

  /**
   * The buffer, with at least `n` bytes free from `lentAt()`, for a writer that appends there
   * itself and then calls `commit` (or not, to drop what it wrote). The fast path writes its
   * lines in place this way: before, they were written into a buffer of its own and copied here
   * (a view and a copy per message).
   */
  lend(n: number): Buffer {
    this.room(n);
    return this.buf;
  }

  /** Where a writer given `lend`'s buffer starts appending. */
  lentAt(): number {
    return this.pos;
  }

  /**
   * A writer given `lend`'s buffer wrote up to `end`; `buf` is that buffer, or a larger one it
   * grew into that holds a copy of everything before its start (adopted in its place).
   */
  commit(buf: Buffer, end: number): void {
    this.buf = buf;
    this.pos = end;
  }

  /** Appends one ASCII byte. */
  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  /** Appends a string known to be ASCII (hash keys, numbers) as it is. */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Appends any string as UTF-8. */
  text(s: string): void {
    this.room(3 * s.length);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** Appends a string as a JSON string literal, exactly as JSON.stringify writes it. */
  jsonString(s: string): void {
    const n = s.length;
    // Most values (media, kinds) are short plain ASCII: quote them without JSON.stringify.
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        this.text(JSON.stringify(s));
        return;
      }
    }
    this.room(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /** Appends a number as JSON.stringify would, but with `null` for NaN and infinities too. */
  number(v: number): void {
    if (Number.isSafeInteger(v)) this.int(v);
    else if (Number.isFinite(v)) this.ascii(String(v));
    else this.ascii('null');
  }

  /** Appends a safe integer in decimal (no string made on the way). */
  private int(v: number): void {
    this.room(17);
    // -0 prints as 0, as String(-0) does.
    if (v < 0) {
      this.buf[this.pos++] = 0x2d;
      v = -v;
    }
    this.pos = writeUintDecimal(this.buf, this.pos, v);
  }

  /**
   * Lines are complete up to here: hands them out now when a chunk's worth is waiting, else
   * within FLUSH_MS (a write per message costs more than the message itself).
   */
  endLine(): void {
    if (this.pos - this.start >= CHUNK_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(() => {
        this.scheduled = false;
        this.flush();
      }, FLUSH_MS);
    }
  }

  /** Hands what is waiting to the stream. */
  flush(): void {
    if (this.pos === this.start) return;
    const chunk = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    const flowing = this.out.write(chunk);
    // Written through already (a pipe's stdout writes at once while the reader keeps up): the
    // buffer is free again. Reusing it spares a new 256 KB buffer, and its GC, every 256 KB.
    if (this.out.writableLength === 0) {
      this.start = 0;
      this.pos = 0;
    }
    if (!flowing && this.pressure === null) {
      this.pressure = new Promise((resolve) =>
        this.out.once('drain', () => {
          this.pressure = null;
          resolve();
        }),
      );
    }
  }

  /** While the stream is behind: a promise that settles once it has drained; else null. */
  blocked(): Promise<void> | null {
    return this.pressure;
  }

  /** Flushes and resolves once everything handed out has been written. */
  end(): Promise<void> {
    this.flush();
    return new Promise((resolve) => this.out.write(new Uint8Array(0), () => resolve()));
  }
}
