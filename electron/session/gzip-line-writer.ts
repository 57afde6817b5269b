// A gzip JSON-lines file written behind a bounded queue. Lines wait in memory until a megabyte of
// them is queued or a flush is due, and while gzip or the disk is busy: gzip.write() and the
// file's write() results are honoured (a full gzip input waits for 'drain', a full file pauses
// gzip's output), so nothing grows without bound below the queue. A sync flush at least every
// flushIntervalMs (and every FLUSH_BYTES under load) makes what was accepted readable from a file
// cut by a crash. A line that finds the queue full is refused and counted: the caller can say how
// much was not recorded instead of losing it silently.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { constants, createGzip, type Gzip } from 'node:zlib';

/**
 * Lines are queued as UTF-8 in buffers of this many bytes, written straight into them: no string
 * per line is kept, joined or converted again, which under a busy ingest was most of the recording's
 * cost (copies and garbage collection).
 */
const SEGMENT_BYTES = 64 * 1024;
/**
 * One gzip write takes what is queued, up to this many bytes. Each write (and each full output
 * buffer) costs a turn of the event loop, which a busy ingest makes long: big writes keep gzip's
 * throughput up while the main thread is loaded.
 */
const WRITE_BYTES = 2 * 1024 * 1024;
/**
 * Spare segments kept for reuse, and spare write buffers (WRITE_BYTES and one segment more, what a
 * take can reach). Under a busy ingest a new 64 KiB segment per 64 KiB of lines and a new 2 MiB
 * buffer per write (25 MB/s each) lived long enough to reach V8's old generation, whose buffers
 * are freed only by a full collection: about 50 MB of dead buffers waited for one at any time.
 */
const SPARE_SEGMENTS = 48;
const SPARE_WRITE_BUFFERS = 2;
const WRITE_BUFFER_BYTES = WRITE_BYTES + SEGMENT_BYTES;
/** gzip's output buffer: one turn of the event loop per this many compressed bytes. */
const GZIP_CHUNK_BYTES = 256 * 1024;
/** Under load a sync flush follows this many bytes of input, so the file keeps up with the input. */
const FLUSH_BYTES = 1024 * 1024;
/**
 * Lines go to gzip once this many bytes are queued, or when a flush or a member's end wants them.
 * Each gzip write is a job on the thread pool, and deflate's state (about 400 KB at memLevel 9) is
 * cold again by the next: handed over a 64 KB segment at a time, deflate took 3.4 µs of CPU per
 * fixture message where it takes 2.0 on a whole file. As large as FLUSH_BYTES, so a crash loses no
 * more than before: the lines handed over were not flushed before either.
 */
const HAND_OVER_BYTES = FLUSH_BYTES;
/**
 * Level 1 with zlib's largest hash memory (memLevel 9): on the version-2 lines of vLLM's fixtures,
 * written as bytes, 1.87 µs of deflate CPU per message against 2.09 at level 3 (the best of three
 * runs each, twice), for 2% more bytes (94.0 against 92.2 per message). Level 3 had been three
 * times the speed of zlib's default 6 on these lines for 7% more bytes.
 */
const GZIP_LEVEL = 1;
const GZIP_MEM_LEVEL = 9;

/** Tuning of a line writer. */
export interface LineWriterOptions {
  /** Longest time an accepted line waits before a sync flush makes it readable from the file. */
  flushIntervalMs: number;
  /** Bytes of lines waiting for gzip beyond which new lines are refused (and counted). */
  maxQueueBytes: number;
  /** Told once, with the reason, when the file cannot be written any more. */
  onError?: (message: string) => void;
}

/** Where the writer stands: what was accepted, what the file already holds, what was refused. */
export interface LineWriterStats {
  /** Lines accepted into the queue. */
  accepted: number;
  /** Accepted lines whose compressed bytes the file holds (a kill -9 of the process keeps them). */
  durable: number;
  /** Lines refused because the queue was full or the file had failed. */
  dropped: number;
  /** Bytes of lines waiting for gzip. */
  queuedBytes: number;
  /** Date.now() when the oldest accepted line that is not yet durable arrived; null if none. */
  oldestPendingAt: number | null;
  /** Compressed bytes written to the file. */
  fileBytes: number;
}

interface Segment {
  buf: Buffer;
  /** Bytes used in buf. */
  bytes: number;
  lines: number;
  firstAt: number;
  /** Takes no more lines: what comes after a Save As goes into the next member. */
  sealed: boolean;
}

/** Accepted lines not durable yet, in order: `endLine` is the accepted count at its end. */
interface Pending {
  endLine: number;
  firstAt: number;
}

/** A point in gzip's output: once the file holds `out` bytes, the first `lines` lines are durable. */
interface Mark {
  out: number;
  lines: number;
}

/** A gzip JSON-lines file fed through a bounded, backpressured queue. */
export class GzipLineWriter {
  private readonly file: WriteStream;
  private gz: Gzip;
  private gzEnded: Promise<void> = Promise.resolve();
  private readonly queue: Segment[] = [];
  private queuedBytes = 0;
  /** Segment buffers (SEGMENT_BYTES) and write buffers (WRITE_BUFFER_BYTES) free for reuse. */
  private readonly spareSegments: Buffer[] = [];
  private readonly spareWrites: Buffer[] = [];
  private readonly pending: Pending[] = [];
  private readonly marks: Mark[] = [];
  private readonly waiters: { lines: number; resolve: () => void }[] = [];
  private accepted = 0;
  private handed = 0;
  private flushed = 0;
  private durable = 0;
  private dropped = 0;
  private unflushedBytes = 0;
  /** gzip output bytes emitted, and how many of them the file has written. */
  private out = 0;
  private written = 0;
  private pumping: Promise<void> | null = null;
  /** While a member is being ended (Save As), lines after this many wait in the queue. */
  private holdFrom: number | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /**
   * A flush (asked, or the interval's) wants the first this many accepted lines handed to gzip and
   * flushed. A count, not a flag: one sync flush covers at most WRITE_BYTES, and a flag it cleared
   * left a longer queue's tail waiting for the next interval (flush() waited up to 250 ms).
   */
  private flushTo = 0;
  private kickSoon = false;
  /** What waits on gzip or the file now: all of it goes on when the file fails. */
  private readonly failWaits = new Set<() => void>();
  private closed = false;
  /** Why the file cannot be written (a full disk, say); null while all is well. */
  error: string | null = null;

  /** HAND_OVER_BYTES, or less under a small queue bound: lines waiting there are not refused. */
  private readonly handOverBytes: number;

  constructor(
    readonly path: string,
    private readonly opts: LineWriterOptions,
  ) {
    this.handOverBytes = Math.min(HAND_OVER_BYTES, opts.maxQueueBytes / 4);
    this.file = createWriteStream(path, { flags: 'w' });
    this.file.on('error', (err) => this.fail(err));
    this.gz = this.newMember();
  }

  /** Bytes of the segments queued and of the buffers kept for reuse (for the memory figures). */
  bytes(): number {
    let n = 0;
    for (const seg of this.queue) n += seg.buf.length;
    for (const b of this.spareSegments) n += b.length;
    for (const b of this.spareWrites) n += b.length;
    return n;
  }

  /** Whether lines of `chars` UTF-16 units in all would surely be taken now (3 bytes a unit at most). */
  takes(chars: number): boolean {
    return this.takesBytes(chars * 3);
  }

  /** Whether lines of `bytes` UTF-8 bytes in all would surely be taken now. */
  takesBytes(bytes: number): boolean {
    return (
      !this.closed && this.error === null && this.queuedBytes + bytes <= this.opts.maxQueueBytes
    );
  }

  /** Queue one line (no newline); false when it was refused and counted as dropped. */
  write(line: string): boolean {
    if (this.closed) return false;
    // UTF-8 takes at least one byte and at most 3 per UTF-16 unit (ASCII: exactly 1).
    if (this.error !== null || this.queuedBytes + line.length + 1 > this.opts.maxQueueBytes) {
      this.dropped += 1;
      return false;
    }
    const seg = this.segmentFor(line.length * 3 + 1);
    const bytes = seg.buf.write(line, seg.bytes, 'utf8') + 1;
    if (this.queuedBytes + bytes > this.opts.maxQueueBytes) {
      // Past the bound once encoded: refused, its bytes left unused (and a segment it opened dropped).
      if (seg.lines === 0) this.queue.pop();
      this.dropped += 1;
      return false;
    }
    seg.buf[seg.bytes + bytes - 1] = 0x0a;
    this.accept(seg, bytes, 1);
    return true;
  }

  /**
   * Queue `lines` whole lines that are already UTF-8, each ending with a newline: src[start, end)
   * (a batch's event lines: one copy, no string). All or none: false when refused (counted as
   * `lines` dropped).
   */
  writeBytes(src: Buffer, start: number, end: number, lines: number): boolean {
    if (this.closed) return false;
    const bytes = end - start;
    if (!this.takesBytes(bytes)) {
      this.dropped += lines;
      return false;
    }
    const seg = this.segmentFor(bytes);
    src.copy(seg.buf, seg.bytes, start, end);
    this.accept(seg, bytes, lines);
    return true;
  }

  /** The segment that takes the next `most` bytes (a new one when the last is full or sealed). */
  private segmentFor(most: number): Segment {
    let seg = this.queue[this.queue.length - 1];
    if (!seg || seg.sealed || seg.buf.length - seg.bytes < most) {
      const buf =
        most <= SEGMENT_BYTES
          ? (this.spareSegments.pop() ?? Buffer.allocUnsafe(SEGMENT_BYTES))
          : Buffer.allocUnsafe(most);
      seg = { buf, bytes: 0, lines: 0, firstAt: Date.now(), sealed: false };
      this.queue.push(seg);
    }
    return seg;
  }

  private accept(seg: Segment, bytes: number, lines: number): void {
    seg.bytes += bytes;
    seg.lines += lines;
    this.queuedBytes += bytes;
    this.accepted += lines;
    this.armFlush();
    if (this.queuedBytes >= this.handOverBytes) this.kickNext();
  }

  /**
   * A pump on the next turn, not now: the segments of a whole burst go to gzip in one write. Only
   * complete segments (and, for a flush, the last one) are handed over: each gzip write is a trip
   * through the stream machinery and the thread pool, and under load a turn holds a message or two.
   */
  private kickNext(): void {
    if (this.pumping || this.kickSoon) return;
    this.kickSoon = true;
    setImmediate(() => {
      this.kickSoon = false;
      this.kick();
    });
  }

  /** Counts and lag (see LineWriterStats). */
  stats(): LineWriterStats {
    const oldest = this.pending[0]?.firstAt ?? this.queue[0]?.firstAt ?? null;
    return {
      accepted: this.accepted,
      durable: this.durable,
      dropped: this.dropped,
      queuedBytes: this.queuedBytes,
      oldestPendingAt: oldest,
      fileBytes: this.written,
    };
  }

  /** Resolves once every line accepted so far is durable (or the file has failed). */
  async flush(): Promise<void> {
    const done = this.durableUpTo(this.accepted);
    this.wantFlush();
    await done;
  }

  private durableUpTo(lines: number): Promise<void> {
    if (this.durable >= lines || this.error !== null) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ lines, resolve }));
  }

  /**
   * Ends the gzip member after every line accepted so far (the file is then a complete gzip), runs
   * `fn` (a copy of the file), then starts a new member; lines arriving meanwhile wait in the queue.
   */
  async withMemberEnded<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return fn();
    try {
      await this.endMember();
      return await fn();
    } finally {
      this.holdFrom = null;
      if (!this.closed) {
        this.gz = this.newMember();
        this.kick();
      }
    }
  }

  /** Writes what is queued, ends the gzip member and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.endMember();
    if (this.error === null && !this.file.destroyed) {
      await new Promise<void>((resolve) => this.file.end(() => resolve()));
    } else {
      this.file.destroy();
    }
    this.release();
  }

  private async endMember(): Promise<void> {
    const last = this.queue[this.queue.length - 1];
    if (last) last.sealed = true;
    this.holdFrom = this.accepted;
    // The pump hands over everything up to holdFrom, then stops.
    this.kick();
    while (this.pumping) await this.pumping;
    if (this.error !== null) return;
    // Everything handed to this member is in its output once it ends.
    this.gz.end();
    await this.gzEnded;
    this.addMark(this.handed);
    this.flushed = this.handed;
    // Only what this member holds: lines still queued wait for the next one.
    await this.durableUpTo(this.handed);
  }

  private newMember(): Gzip {
    const gz = createGzip({
      level: GZIP_LEVEL,
      memLevel: GZIP_MEM_LEVEL,
      chunkSize: GZIP_CHUNK_BYTES,
    });
    gz.on('data', (chunk: Buffer) => {
      this.out += chunk.length;
      const ok = this.file.write(chunk, (err) => {
        if (err) return this.fail(err);
        this.written += chunk.length;
        this.settle();
      });
      // The file's buffer is full: stop gzip's output until it drains (gzip then stops taking input).
      if (!ok && !this.file.destroyed) {
        gz.pause();
        this.file.once('drain', () => gz.resume());
      }
    });
    gz.on('error', (err) => this.fail(err));
    this.gzEnded = Promise.race([
      once(gz, 'end').then(() => undefined),
      once(gz, 'close').then(() => undefined),
    ]).catch(() => undefined);
    return gz;
  }

  private get holding(): boolean {
    return this.holdFrom !== null && this.handed >= this.holdFrom;
  }

  private kick(): void {
    if (this.pumping || this.holding || this.error !== null) return;
    this.pumping = this.pump()
      .catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))))
      .finally(() => {
        this.pumping = null;
        // Lines written between the pump's last look and now (write() saw it still running).
        const handOver = this.queue.length > 1 && this.handOverDue();
        if (handOver || this.queue[0]?.sealed === true || this.flushWanted) this.kick();
      });
  }

  /** Hands what is queued to gzip, one write at a time, waiting whenever gzip says it is full. */
  private async pump(): Promise<void> {
    for (;;) {
      if (this.holding || this.error !== null) return;
      const taken = this.take();
      if (taken !== null) {
        // Once gzip has read the chunk, its buffer can take lines again.
        const { owner } = taken;
        const full = !this.gz.write(taken.chunk, (err) => {
          if (!err) this.spare(owner);
        });
        if (this.unflushedBytes >= FLUSH_BYTES || this.flushWanted) await this.syncFlush();
        else if (full) await this.unlessFailed(once(this.gz, 'drain'));
        continue;
      }
      if (this.flushWanted && this.handed > this.flushed) {
        await this.syncFlush();
        continue;
      }
      return;
    }
  }

  /** Keeps buf (a segment or a write buffer gzip is done with) for reuse, while few are kept. */
  private spare(buf: Buffer): void {
    if (buf.length === SEGMENT_BYTES) {
      if (this.spareSegments.length < SPARE_SEGMENTS) this.spareSegments.push(buf);
    } else if (buf.length === WRITE_BUFFER_BYTES) {
      if (this.spareWrites.length < SPARE_WRITE_BUFFERS) this.spareWrites.push(buf);
    }
  }

  /**
   * Takes queued segments (up to WRITE_BYTES, never past holdFrom) as one chunk, with the buffer
   * it lies in (to reuse once gzip has read it), or null.
   */
  private take(): { chunk: Buffer; owner: Buffer } | null {
    if (!this.handOverDue()) return null;
    const parts: Buffer[] = [];
    const owners: Buffer[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && bytes < WRITE_BYTES) {
      if (this.holdFrom !== null && this.handed >= this.holdFrom) break;
      const seg = this.queue[0] as Segment;
      // The segment still filling waits for more lines, unless a flush or a member's end wants it.
      const filling = this.queue.length === 1 && !seg.sealed;
      if (filling && !this.flushWanted && this.holdFrom === null) break;
      this.queue.shift();
      this.queuedBytes -= seg.bytes;
      this.handed += seg.lines;
      this.pending.push({ endLine: this.handed, firstAt: seg.firstAt });
      bytes += seg.bytes;
      parts.push(seg.buf.subarray(0, seg.bytes));
      owners.push(seg.buf);
    }
    if (parts.length === 0) return null;
    this.unflushedBytes += bytes;
    // The segment itself goes to gzip, and comes back once gzip has read it.
    if (parts.length === 1) return { chunk: parts[0] as Buffer, owner: owners[0] as Buffer };
    const out =
      bytes <= WRITE_BUFFER_BYTES
        ? (this.spareWrites.pop() ?? Buffer.allocUnsafe(WRITE_BUFFER_BYTES))
        : Buffer.allocUnsafe(bytes);
    let at = 0;
    for (let i = 0; i < parts.length; i += 1) {
      at += (parts[i] as Buffer).copy(out, at);
      // Copied: the segment can take lines again.
      this.spare(owners[i] as Buffer);
    }
    return { chunk: out.subarray(0, bytes), owner: out };
  }

  private async syncFlush(): Promise<void> {
    const lines = this.handed;
    this.unflushedBytes = 0;
    const gz = this.gz;
    await this.unlessFailed(
      new Promise<void>((resolve) => gz.flush(constants.Z_SYNC_FLUSH, () => resolve())),
    );
    this.flushed = lines;
    // The flush's output is emitted by now, or waits in gzip's readable buffer (a paused file).
    this.addMark(lines, gz.readableLength);
    if (this.accepted > this.flushed) this.armFlush();
  }

  private unlessFailed(p: Promise<unknown>): Promise<unknown> {
    if (this.error !== null) return Promise.resolve();
    // Not Promise.race with one promise that settles only on failure: each race would leave a
    // reaction on it for the writer's whole life (300 bytes per flush, growing without bound).
    return new Promise((resolve) => {
      const done = (): void => {
        this.failWaits.delete(done);
        resolve(undefined);
      };
      this.failWaits.add(done);
      p.then(done, done);
    });
  }

  private addMark(lines: number, buffered = 0): void {
    this.marks.push({ out: this.out + buffered, lines });
    this.settle();
  }

  /** Moves `durable` forward to the marks the file has written, and wakes who waits for it. */
  private settle(): void {
    while (this.marks.length > 0 && (this.marks[0] as Mark).out <= this.written) {
      this.durable = Math.max(this.durable, (this.marks.shift() as Mark).lines);
    }
    while (this.pending.length > 0 && (this.pending[0] as Pending).endLine <= this.durable) {
      this.pending.shift();
    }
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i] as { lines: number; resolve: () => void };
      if (w.lines <= this.durable) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private armFlush(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.wantFlush();
    }, this.opts.flushIntervalMs);
    this.flushTimer.unref();
  }

  private wantFlush(): void {
    this.flushTo = Math.max(this.flushTo, this.accepted);
    this.kick();
  }

  /** A flush waits for lines not yet handed to gzip and flushed. */
  private get flushWanted(): boolean {
    return this.flushTo > this.flushed;
  }

  /** Whether queued lines go to gzip now: enough of them, or a flush or a member's end wants them. */
  private handOverDue(): boolean {
    return this.queuedBytes >= this.handOverBytes || this.flushWanted || this.holdFrom !== null;
  }

  /** The file cannot be written: what waits is counted as not recorded, and nobody waits forever. */
  private fail(err: Error): void {
    if (this.error !== null) return;
    this.error = err.message;
    // What was accepted and is not on disk is now not recorded: it moves from behind to dropped.
    this.dropped += this.accepted - this.durable;
    this.accepted = this.durable;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.pending.length = 0;
    this.gz.destroy();
    for (const done of [...this.failWaits]) done();
    this.release();
    this.opts.onError?.(err.message);
  }

  private release(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}
