// Reading a session file as a stream: each record goes to a visitor, so a 500 MB file never sits
// in memory. Bad lines are skipped and listed; a truncated file yields everything before the cut.
// A batch read again (a seq already applied) is a duplicate, counted and skipped, as live.

import { missingCase } from '../../shared/records';
import {
  isHeader,
  parseRecord,
  readHeader,
  SESSION_FORMAT,
  SESSION_VERSION,
  type SessionHeader,
  type SessionRecord,
  type SessionSource,
} from './format';
import {
  MAX_LINE_BYTES,
  readLines,
  type LineReadEnd,
  type LineReadOptions,
  type SessionInput,
} from './line-reader';
import { parseLossless } from './lossless-json';
import { OutOfReachBatches } from './out-of-reach-seq';
import { BOMB, duplicateProblem, endProblems, longLineProblem, mib, Problems } from './problems';
import { SeqDedup } from './seq-dedup';

const NOT_AN_OBJECT = 'not an object';

/** The first line is not a session header: the file is something else. */
export class NotASessionError extends Error {
  /**
   * what: why. noCapture: it is no capture either (its first line is a session's record, not its
   * header: its lines out of order; or it holds no line at all).
   */
  constructor(
    what: string,
    readonly noCapture = false,
  ) {
    super(`not a KV Scope session: ${what}`);
    this.name = 'NotASessionError';
  }
}

/** Why a read found no header: nothing there, damage before the first line, or a bomb from the start. */
function nothingReadBecause(end: LineReadEnd): string {
  if (end.bombStoppedAt !== null)
    return `it ${BOMB}: stopped after ${mib(end.bombStoppedAt)}, no line read`;
  if (end.damaged !== null) return `it is damaged before its first line (gzip: ${end.damaged})`;
  return 'it is empty (no line to read)';
}

/** Counts of what a read delivered. */
export interface SessionCounts {
  events: number;
  gaps: number;
  resets: number;
  undecoded: number;
  eventErrors: number;
  skippedLines: number;
  /** Event lines of a batch already read (same source and seq): counted, not delivered. */
  duplicates: number;
}

export interface SessionReadResult {
  header: SessionHeader;
  problems: string[];
  counts: SessionCounts;
  /** The read stopped before the end (a gzip bomb): what came after was never read. */
  stoppedEarly: boolean;
}

/** A line's value read as a session record, or why it is none. */
function recordOf(v: unknown): ReturnType<typeof parseRecord> | typeof NOT_AN_OBJECT {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? parseRecord(v as Record<string, unknown>)
    : NOT_AN_OBJECT;
}

/** Why a first line that is no header is no session; a session's record says so. */
function notAHeader(v: unknown): NotASessionError {
  const record = recordOf(v);
  if (typeof record === 'string') return new NotASessionError('first line is not a header');
  const kind = 'outOfReach' in record ? 'event' : record.r.k;
  return new NotASessionError(
    `its first line is a session's ${kind} line, not its header: a session starts with its header (are its lines out of order?)`,
    true,
  );
}

/** Adds a source to the header's, or puts it in the place of the one of its id (a later name). */
function takeSource(h: SessionHeader, src: SessionSource): void {
  const known = h.sources.findIndex((s) => s.id === src.id);
  if (known < 0) h.sources.push(src);
  else h.sources[known] = src;
}

/**
 * Stream a session file's records to onRecord, each with the line it was read from; rejects with
 * NotASessionError when it is not one.
 */
export async function readSession(
  input: SessionInput,
  onRecord: (r: SessionRecord, line: string) => void,
  { onProgress, onBytes }: Pick<LineReadOptions, 'onProgress' | 'onBytes'> = {},
): Promise<SessionReadResult> {
  const problems = new Problems();
  const counts: SessionCounts = {
    events: 0,
    gaps: 0,
    resets: 0,
    undecoded: 0,
    eventErrors: 0,
    skippedLines: 0,
    duplicates: 0,
  };
  const dedup = new SeqDedup();
  let header: SessionHeader | null = null;
  const skip = (p: string): void => {
    counts.skippedLines += 1;
    problems.add(p);
  };
  const deliver = (r: SessionRecord, line: string): void => {
    outOfReach.flush();
    switch (r.k) {
      case 'source':
        // A later line of a known id renames it (the name an llm-d topic gave).
        takeSource(header as SessionHeader, r.rec);
        break;
      case 'event':
        counts.events += 1;
        break;
      case 'gap':
        counts.gaps += 1;
        break;
      case 'reset':
        counts.resets += 1;
        break;
      case 'undecoded':
        counts.undecoded += 1;
        break;
      case 'event-error':
        counts.eventErrors += 1;
        break;
      default:
        missingCase(r);
    }
    onRecord(r, line);
  };
  /** The headers read so far, as their lines: one met again is a recording read again. */
  const headerLines = new Set<string>();
  /**
   * A header after the first: two recordings joined into one file (cat a b). Another recording's
   * app started from nothing (it joined its engines mid-stream, and missed what they did while no
   * app read them): each of its sources starts over at its first batch after the header, read as
   * a restart, so a seq the first recording had read too is no duplicate (nothing of the second
   * is dropped) and no block of the first is kept that the second never saw removed. A header
   * met before is that recording again (cat a a, cat a b b): its lines are copies.
   */
  const joined = (v: Record<string, unknown>, line: string, lineNo: number): void => {
    if (headerLines.has(line)) {
      problems.addAlways(
        `line ${lineNo}: a header read before again (a session joined with itself?): its batches read again are duplicates`,
      );
      return;
    }
    headerLines.add(line);
    for (const src of readHeader(v).header.sources) takeSource(header as SessionHeader, src);
    dedup.startOverAll();
    problems.addAlways(
      `line ${lineNo}: another recording's header (two sessions joined): each source starts over at its first batch after it, read as a restart`,
    );
  };
  const outOfReach = new OutOfReachBatches(problems, (rec) => deliver({ k: 'undecoded', rec }, ''));
  /**
   * A first line that is no header and no session record (damaged: a flipped byte, a cut): the
   * next line tells. A session's record there makes this a session whose header was lost, read on
   * (its lines name their sources), so nothing after the damage is lost; else it is no session.
   */
  let damaged: { lineNo: number; why: string; error: NotASessionError } | null = null;
  /** The next line after a damaged first one is a session's: go on with a header of nothing. */
  const headerLost = (): SessionHeader => {
    const d = damaged as { lineNo: number; why: string };
    skip(
      `line ${d.lineNo}: the session header is unreadable (${d.why}): the lines after it are read as the session's, without the header's sources and start time (skipped)`,
    );
    return readHeader({ format: SESSION_FORMAT, version: SESSION_VERSION }).header;
  };
  const end = await readLines(
    input,
    (line, lineNo, last) => {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        if (header === null) {
          const error = new NotASessionError('first line is not a header (not JSON)');
          if (damaged !== null || last) throw damaged?.error ?? error;
          damaged = { lineNo, why: 'not JSON', error };
          return;
        }
        skip(
          last
            ? `line ${lineNo}: cut off at the end of the file (skipped)`
            : `line ${lineNo}: not JSON (skipped)`,
        );
        return;
      }
      if (header === null && !isHeader(v)) {
        if (damaged === null) {
          const error = notAHeader(v);
          // A session's own record first: its lines are out of order, said as before.
          if (error.noCapture) throw error;
          damaged = { lineNo, why: 'not a header', error };
          return;
        }
        if (typeof recordOf(v) === 'string') throw damaged.error;
        header = headerLost();
      } else if (header === null) {
        if (damaged !== null) skip(`line ${damaged.lineNo}: ${damaged.why} (skipped)`);
        const h = readHeader(v as Record<string, unknown>);
        header = h.header;
        headerLines.add(line);
        for (const p of h.problems) problems.addAlways(p);
        return;
      }
      const parsed = recordOf(v);
      if (typeof parsed === 'string') {
        if (isHeader(v)) {
          joined(v, line, lineNo);
          return;
        }
        // JSON.parse may have rounded a long number the reason names (a gap's seq past 2^53):
        // the lossless parse of this rare line says it as the file has it.
        const exact =
          parsed === NOT_AN_OBJECT
            ? parsed
            : parseRecord(parseLossless(line) as Record<string, unknown>);
        skip(`line ${lineNo}: ${typeof exact === 'string' ? exact : parsed} (skipped)`);
        return;
      }
      if ('outOfReach' in parsed) {
        // JSON.parse rounded a long seq: the lossless parse (a rare line) names its digits.
        const exact = parseRecord(parseLossless(line) as Record<string, unknown>);
        const { source, seq, at } = (
          typeof exact === 'object' && 'outOfReach' in exact ? exact : parsed
        ).outOfReach;
        outOfReach.line(source, seq, Buffer.byteLength(line), at, lineNo);
        return;
      }
      const { r, timeError } = parsed;
      if (timeError !== null) problems.add(`line ${lineNo}: ${timeError} (kept as an event error)`);
      if (r.k === 'reset') dedup.reset(r.rec.source);
      if (r.k === 'event') {
        const before = dedup.maxSeq(r.rec.source);
        const verdict = dedup.event(r.rec.source, r.rec.seq, r.rec.idx, r.rec.ts);
        if (verdict === 'duplicate') {
          counts.duplicates += 1;
          return;
        }
        if (verdict === 'restart') {
          // seq went back with no reset record before it: the publisher restarted.
          deliver(
            { k: 'reset', rec: { source: r.rec.source, previousSeq: before ?? 0, at: r.rec.ts } },
            line,
          );
        }
      }
      deliver(r, line);
    },
    {
      onProgress,
      onBytes,
      onLongLine: (lineNo, bytes) => skip(longLineProblem(lineNo, bytes, MAX_LINE_BYTES)),
    },
  );
  outOfReach.flush();
  if (header === null)
    // A bomb's blank lines before it stopped are no first line: it is said as a bomb too. A
    // first line seen (damaged: no header) may be a capture's, read as one next.
    throw end.lines === 0 || (end.bombStoppedAt !== null && damaged === null)
      ? new NotASessionError(nothingReadBecause(end), true)
      : ((damaged as { error: NotASessionError } | null)?.error ??
          new NotASessionError('first line is not a header'));
  const dup = duplicateProblem(counts.duplicates);
  if (dup) problems.addAlways(dup);
  for (const p of endProblems(end, counts.events)) problems.addAlways(p);
  return { header, problems: problems.result(), counts, stoppedEarly: end.bombStoppedAt !== null };
}
