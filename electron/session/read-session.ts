// Reading a session file as a stream: each record goes to a visitor, so a 500 MB file never sits
// in memory. Bad lines are skipped and listed; a truncated file yields everything before the cut.

import { isHeader, parseRecord, type SessionHeader, type SessionRecord } from './format';
import { MAX_LINE_BYTES, readLines, type SessionInput } from './line-reader';
import { endProblems, longLineProblem, Problems } from './problems';

/** The first line is not a session header: the file is something else. */
export class NotASessionError extends Error {
  constructor(what: string) {
    super(`not a KV Scope session: ${what}`);
    this.name = 'NotASessionError';
  }
}

/** Counts of what a read delivered. */
export interface SessionCounts {
  events: number;
  gaps: number;
  resets: number;
  undecoded: number;
  eventErrors: number;
  skippedLines: number;
}

export interface SessionReadResult {
  header: SessionHeader;
  problems: string[];
  counts: SessionCounts;
}

/** Stream a session file's records to onRecord; rejects with NotASessionError when it is not one. */
export async function readSession(
  input: SessionInput,
  onRecord: (r: SessionRecord) => void,
  onProgress?: (fraction: number) => void,
): Promise<SessionReadResult> {
  const problems = new Problems();
  const counts: SessionCounts = {
    events: 0,
    gaps: 0,
    resets: 0,
    undecoded: 0,
    eventErrors: 0,
    skippedLines: 0,
  };
  let header: SessionHeader | null = null;
  const end = await readLines(
    input,
    (line, lineNo, last) => {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        if (header === null) throw new NotASessionError('first line is not a header (not JSON)');
        counts.skippedLines += 1;
        problems.add(
          last
            ? `line ${lineNo}: cut off at the end of the file (skipped)`
            : `line ${lineNo}: not JSON (skipped)`,
        );
        return;
      }
      if (header === null) {
        if (!isHeader(v)) throw new NotASessionError('first line is not a header');
        header = { ...v, sources: Array.isArray(v.sources) ? [...v.sources] : [] };
        return;
      }
      const r =
        typeof v === 'object' && v !== null
          ? parseRecord(v as Record<string, unknown>)
          : 'not an object';
      if (typeof r === 'string') {
        counts.skippedLines += 1;
        problems.add(`line ${lineNo}: ${r} (skipped)`);
        return;
      }
      if (r.k === 'source') {
        const h: SessionHeader = header;
        if (!h.sources.some((s) => s.id === r.rec.id)) h.sources.push(r.rec);
      } else if (r.k === 'event') counts.events += 1;
      else if (r.k === 'gap') counts.gaps += 1;
      else if (r.k === 'reset') counts.resets += 1;
      else if (r.k === 'undecoded') counts.undecoded += 1;
      else counts.eventErrors += 1;
      onRecord(r);
    },
    {
      onProgress,
      onLongLine: (lineNo, bytes) => {
        counts.skippedLines += 1;
        problems.add(longLineProblem(lineNo, bytes, MAX_LINE_BYTES));
      },
    },
  );
  if (header === null)
    throw new NotASessionError(
      end.lines === 0 ? 'the file is empty' : 'first line is not a header',
    );
  for (const p of endProblems(end, counts.events)) problems.addAlways(p);
  return { header, problems: problems.result(), counts };
}
