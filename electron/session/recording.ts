// Always-on recording: every record is appended to a gzip JSON-lines file on disk as it arrives.
// The lines go through a bounded, backpressured queue (gzip-line-writer) that a sync flush empties
// into the file at least every FLUSH_INTERVAL_MS, so a crash loses at most what is still queued and
// a cut file still reads. When the disk cannot keep up, the status says how far behind the file is,
// and what the full queue refuses is counted, never held in memory without bound.
// Save As ends the current gzip member (so the copy is a complete gzip file), copies it next to
// the target, fsyncs and renames; later records go into a new member of the same file.

import { randomBytes } from 'node:crypto';
import { copyFile, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RecordingStatus } from '../../shared/api-types';
import type { EventRecord } from '../../shared/events';
import type { IngestRecord, IngestSink } from '../../shared/records';
import {
  encodeRecord,
  makeHeader,
  SESSION_SUFFIX,
  type SessionRecord,
  type SessionSource,
} from './format';
import { EventLines } from './event-line-encoder';
import { GzipLineWriter } from './gzip-line-writer';
import { RefusedRecords } from './refused-records';
import { makeDirs } from './make-dirs';

/** Longest time a record waits in memory before a sync flush puts it in the file. */
export const FLUSH_INTERVAL_MS = 250;
/**
 * Bytes of lines that may wait for gzip and the disk: about a second of a flat-out engine (18,000
 * batches/s make 25 MB/s of lines). Past it, records are counted as not recorded.
 */
export const MAX_QUEUE_BYTES = 32 * 1024 * 1024;
/** The file counts as behind the screen once its oldest missing record is older than this. */
export const BEHIND_AFTER_SEC = 1;

/** File names of recordings: `recording-<start time>-<random>.kvscope.jsonl.gz`. */
export const RECORDING_PREFIX = 'recording-';

/** What a recording that cannot be written means for the user (the page's problem, stderr's line). */
export function recordingFailure(why: string): string {
  return `the recording file cannot be written (${why}): events from now on are shown but not recorded`;
}

/**
 * An onWriteError for a headless process (serve, collect): no page shows the failure, so it goes
 * to stderr (the recording tells it once).
 */
export function sayRecordingFailure(why: string): void {
  process.stderr.write(`kvscope: ${recordingFailure(why)}\n`);
}

/** Options for a new recording. */
export interface RecordingOptions {
  dir: string;
  app: string;
  sources?: SessionSource[];
  startedAt?: Date;
  flushIntervalMs?: number;
  maxQueueBytes?: number;
  /** Told once, with the reason, when the file cannot be written any more (a full disk, say). */
  onWriteError?: (message: string) => void;
}

/** A recording file being written. */
export class Recording implements IngestSink {
  private readonly writer: GzipLineWriter;
  private closed = false;
  private saving: Promise<void> | null = null;
  /** Source id → the source as last written. */
  private readonly knownSources = new Map<string, SessionSource>();
  /** What the full queue refused since it last took a line: marked in the file once it does. */
  private readonly refused = new RefusedRecords();
  /** A batch's lines when the caller did not encode them. */
  private readonly lines = new EventLines();

  private constructor(
    readonly path: string,
    opts: RecordingOptions,
  ) {
    this.writer = new GzipLineWriter(path, {
      flushIntervalMs: opts.flushIntervalMs ?? FLUSH_INTERVAL_MS,
      maxQueueBytes: opts.maxQueueBytes ?? MAX_QUEUE_BYTES,
      onError: opts.onWriteError,
    });
  }

  /** Bytes of lines waiting and of the buffers kept for reuse (for the memory figures). */
  bytes(): number {
    return this.writer.bytes();
  }

  /** Start a recording in opts.dir (created if missing); the header is written at once. */
  static async create(opts: RecordingOptions): Promise<Recording> {
    await makeDirs(opts.dir);
    const startedAt = opts.startedAt ?? new Date();
    const name = `${RECORDING_PREFIX}${fileStamp(startedAt)}-${randomBytes(3).toString('hex')}${SESSION_SUFFIX}`;
    const rec = new Recording(join(opts.dir, name), opts);
    const sources = opts.sources ?? [];
    for (const s of sources) rec.knownSources.set(s.id, s);
    rec.writer.write(JSON.stringify(makeHeader(opts.app, startedAt, sources)));
    await rec.flush();
    return rec;
  }

  /** Why the file could not be written (a full disk, say); null while all is well. */
  get writeError(): string | null {
    return this.writer.error;
  }

  /** How far the file is behind what was appended, and what it could not take. */
  status(now = Date.now()): RecordingStatus {
    const s = this.writer.stats();
    const lag = s.oldestPendingAt === null ? 0 : Math.max(0, (now - s.oldestPendingAt) / 1000);
    return {
      lagSeconds: lag,
      behindRecords: s.accepted - s.durable,
      droppedRecords: s.dropped,
      bytes: s.fileBytes,
      behind: lag > BEHIND_AFTER_SEC,
      error: this.writer.error,
    };
  }

  /**
   * Note a source added after the start, renamed (an llm-d topic names a source given no name), or
   * edited to another endpoint: written again only when its name or endpoint changed; a reader
   * takes the latest line of an id.
   */
  addSource(s: SessionSource): void {
    const known = this.knownSources.get(s.id);
    if (known?.name === s.name && known.endpoint === s.endpoint) return;
    // A renamed source keeps its clock offset (the line says it again: the same value).
    const line = known?.clockOffset === undefined ? s : { ...s, clockOffset: known.clockOffset };
    this.knownSources.set(s.id, line);
    this.append({ k: 'source', rec: line });
  }

  /**
   * Note a source's clock offset (IngestSink.clockOffset): its source line again, with
   * clockOffset, when the offset changed (none said reads as 0), so a reopened session charts its
   * batches after the line as live did.
   */
  setClockOffset(id: string, seconds: number): void {
    const known = this.knownSources.get(id) ?? { id, name: id, endpoint: '' };
    if ((known.clockOffset ?? 0) === seconds) return;
    const line = { ...known, clockOffset: seconds };
    this.knownSources.set(id, line);
    this.append({ k: 'source', rec: line });
  }

  /**
   * Note that the user removed a source (at, epoch seconds): its source line again, with
   * removedAt, so a reopened session takes it out of every total there, as live did.
   */
  removeSource(id: string, at: number): void {
    const known = this.knownSources.get(id) ?? { id, name: id, endpoint: '' };
    this.knownSources.delete(id);
    this.append({ k: 'source', rec: { ...known, removedAt: at } });
  }

  /**
   * Append what a source delivered: a batch becomes one line per event (`lines`, when the caller
   * encoded them already: event-line.ts).
   */
  record(r: IngestRecord, lines?: EventLines): void {
    if (r.k !== 'batch') return this.append(r);
    if (this.closed) return;
    if (lines === undefined) {
      lines = this.lines;
      lines.clear();
      for (const e of r.events) lines.add(e);
    }
    // The whole batch in one copy, unless a refused stretch waits for its marker or it does not fit.
    if (!this.refused.pending && this.writer.takesBytes(lines.end)) {
      this.writer.writeBytes(lines.buf, 0, lines.end, lines.count);
      return;
    }
    for (let i = 0; i < lines.count; i++) {
      const start = lines.lineStart(i);
      const end = lines.lineEnd(i) + 1;
      const rec = r.events[i] as EventRecord;
      if (this.refused.pending && this.writer.takesBytes(end - start)) this.writeMarkers();
      if (!this.writer.writeBytes(lines.buf, start, end, 1))
        this.refused.event(rec.source, rec.seq, rec.ts);
    }
  }

  /** Append one record (in the file within FLUSH_INTERVAL_MS while the disk keeps up). */
  append(r: SessionRecord): void {
    if (this.closed) return;
    this.put(encodeRecord(r), r.k === 'event' ? r.rec : undefined);
  }

  /** Queues a line, after the marker of what was refused before it when there is one to write. */
  private put(line: string, event: EventRecord | undefined): void {
    // Only once there is room for this line: building markers while all is refused would cost more.
    if (this.refused.pending && this.writer.takes(line.length + 1)) this.writeMarkers();
    if (this.writer.write(line)) return;
    if (event === undefined) this.refused.other();
    else this.refused.event(event.source, event.seq, event.ts);
  }

  /** The refused stretch's marker lines, once the queue surely takes them all (never a drop of its own). */
  private writeMarkers(): void {
    const lines = this.refused.markerLines();
    if (!this.writer.takes(lines.reduce((n, l) => n + l.length + 1, 0))) return;
    for (const l of lines) this.writer.write(l);
    this.refused.clear();
  }

  /** Resolves once everything appended so far is in the file (or the file has failed). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Copy the whole recording to path atomically (temp file in the same directory, fsync, rename). */
  async saveAs(path: string): Promise<void> {
    while (this.saving) await this.saving;
    const run = this.writer.withMemberEnded(() => copyAtomically(this.path, path));
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

  /** Finish the file (a complete gzip). */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.saving) await this.saving;
    this.closed = true;
    if (this.refused.pending) {
      // Nothing came after the refused stretch: its marker goes in once the queue has drained.
      await this.writer.flush();
      this.writeMarkers();
    }
    await this.writer.close();
  }
}

/** A start time as it appears in a recording's file name (no characters a file system refuses). */
export function fileStamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

async function copyAtomically(from: string, to: string): Promise<void> {
  const tmp = join(dirname(to), `.${basename(to)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await copyFile(from, tmp);
    const fh = await open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, to);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
