// Streaming gunzip that knows where each gzip member ends. Node's Gunzip drops the output of the
// last chunk it was given when bytes that are not another member follow a member (it fails on
// them before it hands the chunk's output on), so 10 bytes of garbage after a recording cost its
// last events. Here each member's deflate data goes through an InflateRaw that stops at the
// member's end and says how much input it used; what follows is checked as a trailer, then as
// another member, and anything else is reported as a tail, never as a reason to drop output.

import * as zlib from 'node:zlib';
import { constants, createInflateRaw, type InflateRaw } from 'node:zlib';

/** zlib.crc32 (Node 20.15+); on an older Node the trailer's CRC goes unchecked (its size is). */
const crc32: ((data: Buffer, value?: number) => number) | undefined = (
  zlib as { crc32?: (data: Buffer, value?: number) => number }
).crc32;

/** How the compressed stream ended. */
export interface GzipEnd {
  /** What went wrong inside a member (corrupt data, truncated), or null. */
  damaged: string | null;
  /** Bytes after the last complete member that are neither a member nor zero padding. */
  trailingBytes: number;
  /** Complete members read. */
  members: number;
  /** Compressed bytes given to the decompressor so far. */
  compressedIn: number;
}

/**
 * Where a member's deflate data was found damaged, in bytes of the compressed stream: zlib drops
 * the output of the write it fails on (up to a slice of it), so the reader may inflate the member
 * again from bodyAt, the failed write (writeAt, writeBytes long) a little at a time, for the lines
 * before the damage past the handedOn bytes of output already handed on.
 */
export interface DamagedMember {
  bodyAt: number;
  writeAt: number;
  writeBytes: number;
  handedOn: number;
}

/** A slice of at most this many compressed bytes is inflated at a time, so abort() is prompt. */
const SLICE = 64 * 1024;

const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const FHCRC = 2;

/** Length of the gzip header at the start of buf, 0 when more bytes are needed, -1 if not one. */
function headerLength(buf: Buffer): number {
  if (buf.length < 10) return buf.length >= 1 && buf[0] !== 0x1f ? -1 : 0;
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return -1;
  const flags = buf[3] as number;
  let at = 10;
  if (flags & FEXTRA) {
    if (buf.length < at + 2) return 0;
    at += 2 + buf.readUInt16LE(at);
  }
  for (const f of [FNAME, FCOMMENT]) {
    if (flags & f) {
      const z = buf.indexOf(0, at);
      if (z < 0) return 0;
      at = z + 1;
    }
  }
  if (flags & FHCRC) at += 2;
  return buf.length < at ? 0 : at;
}

type State = 'header' | 'body' | 'trailer' | 'tail' | 'failed';

/** Feeds compressed chunks in, hands decompressed chunks to onData, in order. */
export class GzipMembers {
  private state: State = 'header';
  private pending: Buffer = Buffer.alloc(0);
  private inflate: InflateRaw | null = null;
  private written = 0;
  private outSize = 0;
  private crc = 0;
  private aborted = false;
  /** Settles the write in flight (by its callback, or by the stream's close on abort). */
  private settle: ((e: Error | null | undefined) => void) | null = null;
  /** The stream the write in flight went to (an old member's close must not settle a new one). */
  private writing: InflateRaw | null = null;
  private ended: Promise<void> = Promise.resolve();
  private readonly end: GzipEnd = { damaged: null, trailingBytes: 0, members: 0, compressedIn: 0 };
  /** Bytes given to write() so far; where the member under way's deflate data began. */
  private fed = 0;
  private bodyAt = 0;
  private damagedMember: DamagedMember | null = null;

  constructor(private readonly onData: (chunk: Buffer) => void) {}

  /** A member was damaged: nothing more will come out. */
  get failed(): boolean {
    return this.state === 'failed';
  }

  /** Compressed bytes given to the decompressor so far. */
  get compressedIn(): number {
    return this.end.compressedIn;
  }

  /** Where the member whose deflate data was corrupt failed, or null (see DamagedMember). */
  get damagedAt(): DamagedMember | null {
    return this.damagedMember;
  }

  /** Give the next compressed chunk; resolves when its output has been handed on. */
  async write(chunk: Buffer): Promise<void> {
    for (let off = 0; off < chunk.length && !this.aborted; off += SLICE) {
      await this.take(chunk.subarray(off, off + SLICE));
    }
  }

  /** Stop now (a limit was reached): no more output is handed on. */
  abort(): void {
    this.aborted = true;
    this.inflate?.destroy();
    this.inflate = null;
  }

  /** The input ended: finish the member under way and say how it all ended. */
  async finish(): Promise<GzipEnd> {
    if (this.aborted) return this.end;
    if (this.state === 'body' && this.inflate) {
      const inf = this.inflate;
      await new Promise<void>((resolve) => {
        inf.once('error', (e: Error) => {
          this.fail(e.message);
          resolve();
        });
        inf.end();
        void this.ended.then(resolve);
      });
      if (this.state === 'body') this.fail('unexpected end of file');
    } else if (this.state === 'trailer') {
      this.fail('unexpected end of file');
    } else if (this.state === 'header' && this.pending.length > 0) {
      if (this.end.members === 0 || this.pending.some((b) => b !== 0)) {
        if (this.end.members === 0) this.fail('unexpected end of file');
        else this.end.trailingBytes += this.pending.length;
      }
    }
    return this.end;
  }

  private fail(message: string): void {
    if (this.end.damaged === null) this.end.damaged = message;
    this.state = 'failed';
    this.inflate?.destroy();
    this.inflate = null;
  }

  private async take(input: Buffer): Promise<void> {
    let chunk = input;
    this.fed += input.length;
    while (chunk.length > 0 && !this.aborted) {
      switch (this.state) {
        case 'failed':
          return;
        case 'tail':
          this.end.trailingBytes += chunk.length;
          return;
        case 'header': {
          const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
          if (this.end.members > 0 && buf.every((b) => b === 0)) {
            // Zero padding after a member is common (tape blocks, preallocated files).
            this.pending = Buffer.alloc(0);
            return;
          }
          const n = headerLength(buf);
          if (n === 0) {
            this.pending = Buffer.from(buf);
            return;
          }
          this.pending = Buffer.alloc(0);
          if (n < 0) {
            if (this.end.members === 0) this.fail('incorrect header check');
            else {
              this.state = 'tail';
              this.end.trailingBytes += buf.length;
            }
            return;
          }
          chunk = buf.subarray(n);
          // What is left of the input is the stream's last bytes given.
          this.bodyAt = this.fed - chunk.length;
          this.startMember();
          break;
        }
        case 'body':
          chunk = await this.inflateSome(chunk);
          break;
        case 'trailer': {
          const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
          if (buf.length < 8) {
            this.pending = Buffer.from(buf);
            return;
          }
          this.pending = Buffer.alloc(0);
          // The trailer: CRC-32 of the member's output, then its length mod 2^32.
          if (crc32 && buf.readUInt32LE(0) !== this.crc) {
            this.fail('incorrect data check');
            return;
          }
          if (buf.readUInt32LE(4) !== this.outSize % 2 ** 32) {
            this.fail('the size in the gzip trailer does not match the data');
            return;
          }
          this.end.members += 1;
          this.state = 'header';
          chunk = buf.subarray(8);
          break;
        }
        default:
          return;
      }
    }
  }

  private startMember(): void {
    const inf = createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    inf.on('data', (c: Buffer) => {
      if (this.aborted) return;
      this.outSize += c.length;
      if (crc32) this.crc = crc32(c, this.crc);
      this.onData(c);
    });
    // Corrupt data fails the write in flight by this event: zlib calls no write callback then, and
    // the stream closes (a file of a gzip header and bad deflate bytes waited for ever).
    inf.on('error', (e: Error) => {
      if (this.writing === inf) this.settle?.(e);
    });
    // An abort() destroys the stream mid-chunk: its close settles the write in flight too.
    inf.once('close', () => {
      if (this.writing === inf) this.settle?.(null);
    });
    this.ended = new Promise<void>((resolve) => {
      inf.once('end', resolve);
      inf.once('close', resolve);
    });
    this.inflate = inf;
    this.written = 0;
    this.outSize = 0;
    this.crc = 0;
    this.state = 'body';
  }

  /** Inflates chunk; returns what is left of it after the member's end (empty while it goes on). */
  private async inflateSome(chunk: Buffer): Promise<Buffer> {
    const inf = this.inflate;
    if (!inf) return Buffer.alloc(0);
    this.written += chunk.length;
    this.end.compressedIn += chunk.length;
    const err = await new Promise<Error | null | undefined>((resolve) => {
      this.settle = resolve;
      this.writing = inf;
      inf.write(chunk, (e) => resolve(e));
    });
    this.settle = null;
    this.writing = null;
    if (this.aborted) return Buffer.alloc(0);
    if (err) {
      // The chunk is the end of what was given: it began this many bytes before its end.
      const writeAt = this.fed - chunk.length;
      this.damagedMember = {
        bodyAt: this.bodyAt,
        writeAt,
        writeBytes: chunk.length,
        handedOn: this.outSize,
      };
      this.fail(err.message);
      return Buffer.alloc(0);
    }
    // InflateRaw stops at the end of the deflate data; what it did not use follows the member.
    const unused = this.written - inf.bytesWritten;
    if (unused <= 0) return Buffer.alloc(0);
    await this.ended;
    inf.destroy();
    this.inflate = null;
    this.state = 'trailer';
    return chunk.subarray(chunk.length - unused);
  }
}
