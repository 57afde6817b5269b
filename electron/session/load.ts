// Replaying a saved session or a JSONL capture through a fresh model, with progress.

import { Readable } from 'node:stream';
import type { EventRecord } from '../../shared/events';
import { MAX_ANALYSED_SOURCES } from '../../shared/analysis-report';
import { missingCase, type IngestRecord } from '../../shared/records';
import type { FileLinesNotApplied } from '../analysis/analyze-json';
import type { CacheAnalysis, CacheAnalysisOptions } from '../analysis/cache-analysis';
import type { CacheModel, CacheModelOptions } from '../model/cache-model';
import { readEventLine } from './event-line';
import { ModelAndAnalysis } from './model-and-analysis';
import type { SessionHeader, SessionRecord } from './format';
import { MAX_LINE_BYTES, type SessionInput } from './line-reader';
import { NotASessionError, readSession } from './read-session';
import { Rewindable } from './rewindable';
import { importSeedCapture } from './seed-capture';

export interface LoadResult extends ReplayResult {
  model: CacheModel;
  analysis: CacheAnalysis;
}

export interface LoadOptions extends ReplayOptions {
  analysisOptions?: CacheAnalysisOptions;
  modelOptions?: CacheModelOptions;
}

/**
 * Turns a file's records (one line per event) back into what a live source delivers: consecutive
 * events of one (source, seq) become one batch record. Call flush() at the end.
 */
export class BatchGrouper {
  private batch: EventRecord[] = [];
  /** Event errors of the open batch: after it, as a live source delivers them. */
  private errors: IngestRecord[] = [];
  constructor(
    private readonly onRecord: (r: IngestRecord) => void,
    /** A source line that marks its source removed: after the records before it. */
    private readonly onSourceRemoved?: (id: string) => void,
    /** A source line with its clock offset: for the batches after it. */
    private readonly onClockOffset?: (id: string, seconds: number) => void,
  ) {}

  push(r: SessionRecord): void {
    switch (r.k) {
      case 'event': {
        const head = this.batch[0];
        if (head && (head.source !== r.rec.source || head.seq !== r.rec.seq)) this.flush();
        this.batch.push(r.rec);
        return;
      }
      case 'source': {
        const { id, removedAt, clockOffset } = r.rec;
        if (clockOffset !== undefined && this.onClockOffset) {
          this.flush();
          this.onClockOffset(id, clockOffset);
        }
        if (removedAt === undefined || !this.onSourceRemoved) return;
        this.flush();
        this.onSourceRemoved(id);
        return;
      }
      case 'event-error': {
        // One bad event inside a batch is not the end of it (that split it in two batches).
        const head = this.batch[0];
        if (head && head.source === r.rec.source && head.seq === r.rec.seq) this.errors.push(r);
        else {
          this.flush();
          this.onRecord(r);
        }
        return;
      }
      case 'gap':
      case 'reset':
      case 'undecoded':
        this.flush();
        this.onRecord(r);
        return;
      default:
        missingCase(r);
    }
  }

  flush(): void {
    const head = this.batch[0];
    if (!head) return;
    const events = this.batch;
    this.batch = [];
    this.onRecord({
      k: 'batch',
      meta: { source: head.source, seq: head.seq, ts: head.ts, dpRank: head.dp_rank },
      events,
    });
    // Rare: no new array per batch for them.
    if (this.errors.length === 0) return;
    const errors = this.errors;
    this.errors = [];
    for (const e of errors) this.onRecord(e);
  }
}

/**
 * The sources of a file read at once: as many as the analysis takes (MAX_ANALYSED_SOURCES). A file
 * naming thousands (a hostile one) grew every per-source structure of the model past any budget
 * (20,000 sources: 780 MB, and charts that never loaded); the records of further sources are
 * dropped and their events counted. A source the file marks removed makes room.
 */
class SourceLimit {
  private readonly present = new Set<string>();
  /** Events of the sources past the limit, not read. */
  droppedEvents = 0;

  /** Whether r is read: a source line always (it names, it holds nothing), others by source. */
  takes(r: SessionRecord): boolean {
    if (r.k === 'source') return true;
    const source = r.rec.source;
    if (this.present.has(source)) return true;
    if (this.present.size < MAX_ANALYSED_SOURCES) {
      this.present.add(source);
      return true;
    }
    if (r.k === 'event') this.droppedEvents += 1;
    return false;
  }

  removed(id: string): void {
    this.present.delete(id);
  }

  /** The problem line, first of the file's, when records were dropped. */
  withProblem(problems: string[]): string[] {
    if (this.droppedEvents === 0) return problems;
    const n = this.droppedEvents.toLocaleString('en-US');
    return [
      `more than ${MAX_ANALYSED_SOURCES} sources at once: ${n} event${this.droppedEvents === 1 ? '' : 's'} of the sources past them not read`,
      ...problems,
    ];
  }
}

/** What replayFile read, and the lines its reader did not apply. */
export interface ReplayResult extends FileLinesNotApplied {
  kind: 'session' | 'capture';
  /** The session's header (null for a capture). */
  header: SessionHeader | null;
  problems: string[];
  events: number;
}

/** Options of replayFile. */
export interface ReplayOptions {
  onProgress?: (fraction: number) => void;
  /** auto: a session if the first line is a header, else a capture (needs a path or a Buffer). */
  kind?: 'session' | 'capture' | 'auto';
  /** Source name for a capture's events. */
  captureSource?: string;
  /** Called with the line of each event a session delivers, before its record (not for captures). */
  onEventLine?: (line: string) => void;
  /** Called where a session marks a source removed, in file order: take it out of every total. */
  onSourceRemoved?: (id: string) => void;
  /** Called where a session says a source's clock offset, in file order: the charts' placement. */
  onClockOffset?: (id: string, seconds: number) => void;
  /** Called with a session's bytes as its read takes them (not a capture's: see cached-open's digestAfterRead). */
  onBytes?: (chunk: Buffer) => void;
}

/**
 * Reads a session file or a JSONL capture and hands its records, batch-grouped, to onRecord in
 * file order: the same records a live source would have delivered. Throws when nothing is readable.
 */
export async function replayFile(
  input: SessionInput,
  onRecord: (r: IngestRecord) => void,
  opts: ReplayOptions = {},
): Promise<ReplayResult> {
  const kind = opts.kind ?? 'auto';
  // A stream of either kind (a pipe) is read as a session first, its first bytes kept to be read
  // again as a capture's: a session is told by its first line.
  const rewind =
    kind === 'auto' && input instanceof Readable
      ? new Rewindable(input, MAX_LINE_BYTES + 2 ** 20)
      : null;
  if (kind !== 'capture') {
    // A session that turns out not to be one delivers nothing before NotASessionError.
    const limit = new SourceLimit();
    const grouper = new BatchGrouper(
      onRecord,
      (id) => {
        limit.removed(id);
        opts.onSourceRemoved?.(id);
      },
      opts.onClockOffset,
    );
    try {
      const onEventLine = opts.onEventLine;
      const r = await readSession(
        rewind?.first() ?? input,
        (rec, line) => {
          rewind?.release();
          // Dropped before its line is handed on: a model pairs lines with its events.
          if (!limit.takes(rec)) return;
          if (onEventLine && rec.k === 'event') onEventLine(line);
          grouper.push(rec);
        },
        { onProgress: opts.onProgress, onBytes: opts.onBytes },
      );
      grouper.flush();
      // Event lines there were, and none of them usable (each a bad ts, a bad line), or the read
      // stopped before any (a gzip bomb): nothing to show. A file of a header alone (a recording
      // just begun) opens, empty.
      const c = r.counts;
      const unusable =
        (c.eventErrors + c.skippedLines > 0 || r.stoppedEarly) && r.problems.length > 0;
      if (c.events === 0 && c.undecoded === 0 && unusable) {
        throw new Error(noEventsRead(c.eventErrors, c.skippedLines, r.problems));
      }
      return {
        kind: 'session',
        header: r.header,
        problems: limit.withProblem(r.problems),
        events: c.events - limit.droppedEvents,
        skippedLines: c.skippedLines,
        duplicateLines: c.duplicates,
      };
    } catch (e) {
      if (!(e instanceof NotASessionError) || kind === 'session' || e.noCapture) throw e;
    }
  }
  const grouper = new BatchGrouper(onRecord);
  const limit = new SourceLimit();
  const r = await importSeedCapture(
    rewind?.again() ?? input,
    (rec) => {
      if (limit.takes(rec)) grouper.push(rec);
    },
    {
      source: opts.captureSource,
      onProgress: opts.onProgress,
    },
  );
  grouper.flush();
  if (r.events === 0 && r.undecoded === 0) {
    // Lines read as a capture's events, every one an event error (a bad ts, say): a capture
    // with nothing usable in it, said as a session with nothing usable is.
    if (r.eventErrors > 0) throw new Error(noEventsRead(r.eventErrors, 0, r.problems));
    throw new Error(
      `not a KV Scope session or a KV events capture: no events could be read${r.problems[0] ? ` (${r.problems[0]})` : ''}`,
    );
  }
  return {
    kind: 'capture',
    header: null,
    problems: limit.withProblem(r.problems),
    events: r.events - limit.droppedEvents,
    skippedLines: r.skippedLines,
    duplicateLines: r.duplicates,
  };
}

/**
 * Why a file holding no usable event is refused, by the open and by `kvscope analyze` alike (one
 * rule: nothing to show is not "opened"): what it held instead and its first problem.
 */
function noEventsRead(eventErrors: number, skippedLines: number, problems: string[]): string {
  const held = [
    eventErrors > 0 ? `${eventErrors} event error${eventErrors === 1 ? '' : 's'}` : null,
    skippedLines > 0 ? `${skippedLines} line${skippedLines === 1 ? '' : 's'} skipped` : null,
  ].filter((x) => x !== null);
  const what = held.length > 0 ? ` (${held.join(', ')})` : '';
  return `no events could be read${what}; the first problem: ${problems[0] ?? 'none said'}`;
}

/** Replay a session file (or a capture) into a model; problems list what could not be read. */
export async function loadIntoModel(
  input: SessionInput,
  opts: LoadOptions = {},
): Promise<LoadResult> {
  // One hash id table for both: each block is looked up once, not once per side.
  const both = new ModelAndAnalysis({ ...opts.modelOptions, readEventLine }, opts.analysisOptions);
  const r = await replayWithLines(input, (rec, lines) => both.apply(rec, lines), {
    ...opts,
    onSourceRemoved: (id) => both.removeSource(id),
    onClockOffset: (id, seconds) => both.setClockOffset(id, seconds),
  });
  return { model: both.model, analysis: both.analysis, ...r };
}

/**
 * Replays a file into model as an open does (the model alone: the open bench measures it so).
 * model should read lines with readEventLine.
 */
export async function replayIntoModel(
  input: SessionInput,
  model: CacheModel,
  opts: ReplayOptions = {},
): Promise<ReplayResult> {
  return replayWithLines(input, (rec, lines) => model.apply(rec, lines), {
    ...opts,
    onSourceRemoved: (id) => model.removeSource(id),
    onClockOffset: (id, seconds) => model.setClockOffset(id, seconds),
  });
}

/** replayFile, each batch of a session handed with its events' lines (a capture's without). */
function replayWithLines(
  input: SessionInput,
  apply: (r: IngestRecord, lines: readonly string[] | undefined) => void,
  opts: ReplayOptions,
): Promise<ReplayResult> {
  // A session's event lines come before their batch (grouped from them): the event log keeps
  // the lines read, not the records (event-line.ts). A capture's events come without.
  const lines: string[] = [];
  return replayFile(
    input,
    (rec) =>
      apply(
        rec,
        rec.k === 'batch' && lines.length >= rec.events.length
          ? lines.splice(0, rec.events.length)
          : undefined,
      ),
    { ...opts, onEventLine: (line) => lines.push(line) },
  );
}
