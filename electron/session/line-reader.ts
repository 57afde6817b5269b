// Streaming line reader for session and capture files: a path, a Buffer or a stream, gzip or
// plain text (sniffed from the magic bytes). A truncated or corrupt gzip stream still yields every
// line before the damage, and says so, so a crashed recording opens. Linear in the input: each
// byte is scanned for a newline once and copied at most once (a line that spans chunks), however
// long the line. A line over the limit is skipped, not held; a stream that inflates far beyond
// its size (a gzip bomb) is stopped.

import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { GzipMembers } from './gzip-members';
import { recoverBeforeDamage } from './gzip-recover';
import { regularFileSize } from './regular-file';

/** What a reader can open. */
export type SessionInput = string | Buffer | Uint8Array | Readable;

/** A line longer than this (in bytes) is skipped with a problem line; reading goes on. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/**
 * Reading stops once the decompressed bytes pass MIN_BOMB_BYTES and this many times the compressed
 * bytes read. JSON lines of events inflate 5 to 20 times (hashes and times differ on every line);
 * zeros or newlines 1,000 times. Any size is read at an ordinary ratio.
 */
export const MAX_INFLATE_RATIO = 200;
export const MIN_BOMB_BYTES = 16 * 1024 * 1024;
/** Plain input is cut into slices of this size, so no line split ever makes a huge string. */
const SLICE = 1024 * 1024;

/** How reading ended. */
export interface LineReadEnd {
  lines: number;
  /** Set when the compressed stream ended early or was damaged: what the decompressor said. */
  damaged: string | null;
  /** The last line had no newline (a file cut off mid-line). */
  unterminatedLast: boolean;
  /** Bytes after the last complete gzip member that are not gzip (ignored, reported). */
  trailingBytes: number;
  /** Lines skipped for being longer than maxLineBytes. */
  longLines: number;
  /** Set when reading stopped at the inflate limit: the decompressed bytes read by then. */
  bombStoppedAt: number | null;
  /** Work done, for tests of linearity: bytes scanned for newlines, bytes copied to join lines. */
  work: { scanned: number; copied: number };
}

/** Called per non-empty line; last is true for a final line that had no newline. */
export type LineVisitor = (line: string, lineNo: number, last: boolean) => void;

/** Options of readLines. */
export interface LineReadOptions {
  onProgress?: (fraction: number) => void;
  /** The input's size when it is a stream, for progress. */
  totalBytes?: number;
  maxLineBytes?: number;
  /** Called for each line skipped for its length (bytes: its length, or more when cut short). */
  onLongLine?: (lineNo: number, bytes: number) => void;
  /** Called with the input's bytes as read, before any inflating (the open cache's digest). */
  onBytes?: (chunk: Buffer) => void;
}

async function open(input: SessionInput): Promise<{ stream: Readable; total: number | null }> {
  if (input instanceof Readable) return { stream: input, total: null };
  // Checked before the stream opens: opening a FIFO blocks until a writer comes.
  const total = typeof input === 'string' ? await regularFileSize(input) : input.byteLength;
  // Said as what it is: an empty file would read as "not a session or a capture".
  if (total === 0) throw new Error('the file is empty (0 bytes): nothing to open');
  return {
    stream: typeof input === 'string' ? createReadStream(input) : Readable.from(slices(input)),
    total,
  };
}

/** Bytes in memory (an upload) as a stream of slices: one whole chunk would report no progress. */
function* slices(input: Uint8Array, size = 256 * 1024): Generator<Buffer> {
  const all = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  for (let at = 0; at < all.length; at += size) yield all.subarray(at, at + size);
}

/** Splits bytes into lines; holds only the unfinished line, as a list of chunks. */
class LineSplitter {
  lineNo = 0;
  longLines = 0;
  readonly work = { scanned: 0, copied: 0 };
  private parts: Buffer[] = [];
  private partLen = 0;

  constructor(
    private readonly visit: LineVisitor,
    private readonly maxLine: number,
    private readonly onLongLine: (lineNo: number, bytes: number) => void,
  ) {}

  feed(chunk: Buffer): void {
    this.work.scanned += chunk.length;
    const first = chunk.indexOf(0x0a);
    if (first < 0) {
      this.hold(chunk);
      return;
    }
    this.finishLine(chunk.subarray(0, first), false);
    const last = chunk.lastIndexOf(0x0a);
    if (last > first) {
      // Whole lines inside one chunk: one decode and a split (a newline byte never sits inside a
      // UTF-8 sequence, so each line decodes on its own). A slice is at most SLICE bytes.
      const text = chunk.toString('utf8', first + 1, last);
      for (const line of text.split('\n')) this.emit(line, false);
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
  }

  /** The input ended: the unfinished line, if any, is the last one. */
  end(): boolean {
    if (this.partLen === 0) return false;
    this.finishLine(Buffer.alloc(0), true);
    return true;
  }

  private hold(b: Buffer): void {
    // Past the limit the line's bytes are counted, not kept.
    if (this.partLen + b.length <= this.maxLine) this.parts.push(b);
    else this.parts = [];
    this.partLen += b.length;
  }

  private finishLine(tail: Buffer, last: boolean): void {
    const len = this.partLen + tail.length;
    const parts = this.parts;
    this.parts = [];
    this.partLen = 0;
    if (len > this.maxLine) {
      this.lineNo += 1;
      this.longLines += 1;
      this.onLongLine(this.lineNo, len);
      return;
    }
    if (parts.length === 0) {
      this.emit(tail.toString('utf8'), last);
      return;
    }
    parts.push(tail);
    const joined = Buffer.concat(parts, len);
    this.work.copied += len;
    this.emit(joined.toString('utf8'), last);
  }

  private emit(raw: string, last: boolean): void {
    this.lineNo += 1;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // A byte-order mark some Windows editors put before the first line is no part of its JSON.
    if (this.lineNo === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() !== '') this.visit(line, this.lineNo, last);
  }
}

/** Read every line of input, gzip or not, calling visit per line and onProgress with the fraction read. */
export async function readLines(
  input: SessionInput,
  visit: LineVisitor,
  opts: LineReadOptions = {},
): Promise<LineReadEnd> {
  const { stream, total: knownTotal } = await open(input);
  const total = opts.totalBytes ?? knownTotal;
  const onProgress = opts.onProgress;
  let visitError: unknown = null;
  const splitter = new LineSplitter(
    visit,
    opts.maxLineBytes ?? MAX_LINE_BYTES,
    opts.onLongLine ?? (() => undefined),
  );
  const feed = (b: Buffer): void => {
    if (visitError !== null) return;
    try {
      for (let off = 0; off < b.length; off += SLICE) splitter.feed(b.subarray(off, off + SLICE));
    } catch (e) {
      visitError = e;
    }
  };
  // Inflated chunks wait here and are split and visited in a microtask: by then zlib has handed its
  // next round to the thread pool, so inflating and parsing overlap instead of taking turns.
  const inflatedOut: Buffer[] = [];
  let drainQueued = false;
  const drain = (): void => {
    drainQueued = false;
    for (let i = 0; i < inflatedOut.length; i += 1) feed(inflatedOut[i] as Buffer);
    inflatedOut.length = 0;
  };
  let gz: GzipMembers | null = null;
  let inflated = 0;
  let bombStoppedAt: number | null = null;
  let read = 0;
  let lastReport = 0;
  // The first bytes are held until there are two of them, to tell gzip from text.
  let head: Buffer | null = Buffer.alloc(0);
  for await (const raw of stream) {
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
    read += chunk.length;
    opts.onBytes?.(chunk);
    let first = false;
    if (head !== null) {
      chunk = head.length > 0 ? Buffer.concat([head, chunk]) : chunk;
      if (chunk.length < 2) {
        head = chunk;
        continue;
      }
      head = null;
      first = true;
    }
    if (first && chunk[0] === 0x1f && chunk[1] === 0x8b) {
      const g = new GzipMembers((out) => {
        inflated += out.length;
        if (
          inflated > MIN_BOMB_BYTES &&
          inflated > MAX_INFLATE_RATIO * Math.max(1, g.compressedIn)
        ) {
          bombStoppedAt = inflated;
          g.abort();
          return;
        }
        inflatedOut.push(out);
        if (!drainQueued) {
          drainQueued = true;
          queueMicrotask(drain);
        }
      });
      gz = g;
    }
    if (gz) {
      await gz.write(chunk);
      drain();
    } else feed(chunk);
    if (visitError !== null || bombStoppedAt !== null || gz?.failed) break;
    if (onProgress && total && read - lastReport > total / 200) {
      lastReport = read;
      onProgress(Math.min(1, read / total));
    }
  }
  if (head !== null && head.length > 0) feed(head);
  const end = gz ? await gz.finish() : null;
  drain();
  const damagedAt = gz?.damagedAt ?? null;
  if (damagedAt && visitError === null && bombStoppedAt === null && !(input instanceof Readable))
    await recoverBeforeDamage(input, damagedAt, MAX_INFLATE_RATIO * damagedAt.writeBytes, feed);
  if (visitError !== null || bombStoppedAt !== null || gz?.failed) stream.destroy();
  if (visitError !== null) throw visitError;
  // A bomb's unfinished line is not a line of the file: drop it rather than call it cut off.
  const hadRest = bombStoppedAt === null ? splitter.end() : false;
  onProgress?.(1);
  return {
    lines: splitter.lineNo,
    damaged: end?.damaged ?? null,
    unterminatedLast: hadRest,
    trailingBytes: end?.trailingBytes ?? 0,
    longLines: splitter.longLines,
    bombStoppedAt,
    work: splitter.work,
  };
}
