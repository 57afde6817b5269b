// Always-on recording: every record is appended to a gzip stream on disk as it arrives, flushed
// (Z_SYNC_FLUSH) at most every 500 ms, so a crash loses at most that and a cut file still reads.
// Save As ends the current gzip member (so the copy is a complete gzip file), copies it next to
// the target, fsyncs and renames; later records go into a new member of the same file.

import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { constants, createGzip, type Gzip } from 'node:zlib';
import type { IngestRecord, IngestSink } from '../../shared/records';
import {
  encodeRecord,
  makeHeader,
  SESSION_SUFFIX,
  type SessionRecord,
  type SessionSource,
} from './format';

/** Longest time a record waits in memory before it is flushed to the file. */
export const FLUSH_INTERVAL_MS = 500;

/** Options for a new recording. */
export interface RecordingOptions {
  dir: string;
  app: string;
  sources?: SessionSource[];
  startedAt?: Date;
  flushIntervalMs?: number;
}

/** A recording file being written. */
export class Recording implements IngestSink {
  private gzip!: Gzip;
  private gzipEnded: Promise<void> = Promise.resolve();
  private readonly file: WriteStream;
  private lastWrite: Promise<void> = Promise.resolve();
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Lines held back while Save As copies the file. */
  private held: string[] | null = null;
  /** Lines not yet handed to gzip: one write per 64 KiB or per flush, not one per line. */
  private pending: string[] = [];
  private pendingBytes = 0;
  private saving: Promise<void> | null = null;
  private readonly knownSources = new Set<string>();
  /** Why the file could not be written (a full disk, say); null while all is well. */
  writeError: string | null = null;
  /** Records appended so far. */
  records = 0;

  private constructor(
    readonly path: string,
    private readonly flushMs: number,
  ) {
    this.file = createWriteStream(path, { flags: 'w' });
    this.file.on('error', (err) => {
      this.writeError ??= err.message;
    });
    this.newMember();
  }

  /** Start a recording in opts.dir (created if missing); the header is written at once. */
  static async create(opts: RecordingOptions): Promise<Recording> {
    await mkdir(opts.dir, { recursive: true });
    const startedAt = opts.startedAt ?? new Date();
    const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
    const name = `recording-${stamp}-${randomBytes(3).toString('hex')}${SESSION_SUFFIX}`;
    const rec = new Recording(join(opts.dir, name), opts.flushIntervalMs ?? FLUSH_INTERVAL_MS);
    const sources = opts.sources ?? [];
    for (const s of sources) rec.knownSources.add(s.id);
    rec.writeLine(JSON.stringify(makeHeader(opts.app, startedAt, sources)));
    await rec.flush();
    return rec;
  }

  /** Note a source added after the start (written once per id). */
  addSource(s: SessionSource): void {
    if (this.knownSources.has(s.id)) return;
    this.knownSources.add(s.id);
    this.append({ k: 'source', rec: s });
  }

  /** Append what a source delivered: a batch becomes one line per event. */
  record(r: IngestRecord): void {
    if (r.k === 'batch') {
      for (const rec of r.events) this.append({ k: 'event', rec });
    } else {
      this.append(r);
    }
  }

  /** Append one record (flushed within FLUSH_INTERVAL_MS). */
  append(r: SessionRecord): void {
    if (this.closed) return;
    this.records += 1;
    this.writeLine(encodeRecord(r));
  }

  /** Push everything appended so far to the file (a sync flush of the gzip stream). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.dirty || this.closed || this.held) {
      await this.lastWrite;
      return;
    }
    this.dirty = false;
    this.drain();
    const gz = this.gzip;
    await new Promise<void>((resolve) => gz.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    // Output of the flush reaches 'data' before or right after its callback.
    await new Promise((r) => setImmediate(r));
    await this.lastWrite;
  }

  /** Copy the whole recording to path atomically (temp file in the same directory, fsync, rename). */
  async saveAs(path: string): Promise<void> {
    while (this.saving) await this.saving;
    const run = this.saveNow(path);
    this.saving = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      this.saving = null;
    }
  }

  private async saveNow(path: string): Promise<void> {
    const resume = !this.closed;
    if (resume) {
      // End this gzip member so the copy is a complete file; lines arriving meanwhile wait in memory.
      this.drain();
      this.held = [];
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.dirty = false;
      this.gzip.end();
      await this.gzipEnded;
      await new Promise((r) => setImmediate(r));
      await this.lastWrite;
    }
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await copyFile(this.path, tmp);
      const fh = await open(tmp, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, path);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    } finally {
      if (resume) {
        const held = this.held ?? [];
        this.held = null;
        this.newMember();
        for (const line of held) this.writeLine(line);
      }
    }
  }

  /** Finish the file (a complete gzip) and stop the timer. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.saving) await this.saving;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.closed = true;
    this.drain();
    this.gzip.end();
    await this.gzipEnded;
    await new Promise((r) => setImmediate(r));
    await this.lastWrite;
    await new Promise<void>((resolve) => this.file.end(() => resolve()));
  }

  private writeLine(line: string): void {
    if (this.held) {
      this.held.push(line);
      return;
    }
    this.pending.push(line, '\n');
    this.pendingBytes += line.length + 1;
    if (this.pendingBytes >= 64 * 1024) this.drain();
    this.dirty = true;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  private drain(): void {
    if (this.pending.length === 0) return;
    this.gzip.write(this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
  }

  private newMember(): void {
    const gz = createGzip();
    gz.on('data', (chunk: Buffer) => {
      this.lastWrite = new Promise<void>((resolve) => this.file.write(chunk, () => resolve()));
    });
    this.gzipEnded = new Promise<void>((resolve) => {
      gz.once('end', resolve);
      gz.once('error', () => resolve());
    });
    this.gzip = gz;
  }
}
