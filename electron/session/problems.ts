// A bounded list of what could not be read, said plainly.

import { moreProblemsLine } from '../../shared/problem-list';
import { MAX_INFLATE_RATIO, type LineReadEnd } from './line-reader';

const MAX_LISTED = 20;
const MAX_QUOTED = 40;

/**
 * A value read from a file, as a problem line may quote it: short plain words and numbers as they
 * are, anything else by its kind only. A file's values may hold prompt content, and problem lines
 * travel in every update frame, which must stay small.
 */
export function quoteValue(v: unknown): string {
  if (typeof v === 'string') {
    return v.length <= MAX_QUOTED && /^[\w.:-]*$/.test(v)
      ? JSON.stringify(v)
      : `a ${v.length}-character string`;
  }
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) {
    return String(v);
  }
  if (Array.isArray(v)) return `a list of ${v.length}`;
  return `a ${typeof v}`;
}

/**
 * Collects problems; past MAX_LISTED line problems it counts and summarises. File-level problems
 * (a damaged or truncated gzip, a newer version, duplicates) come first, so a screen that shows
 * only the first entries still says what happened to the file, not only 20 "not JSON" lines.
 */
export class Problems {
  private readonly always: string[] = [];
  private readonly list: string[] = [];
  private extra = 0;

  add(p: string): void {
    if (this.list.length < MAX_LISTED) this.list.push(p);
    else this.extra += 1;
  }

  /** Always listed, even past the cap (file-level problems), ahead of the line problems. */
  addAlways(p: string): void {
    this.always.push(p);
  }

  result(): string[] {
    return this.extra > 0
      ? [...this.always, ...this.list, moreProblemsLine(this.extra)]
      : [...this.always, ...this.list];
  }
}

/** Bytes as whole MiB, as the problem lines say them. */
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** What a gzip bomb does, as a problem line and a refusal say it. */
export const BOMB = `inflates to more than ${MAX_INFLATE_RATIO} times its size (a gzip bomb?)`;

/** The problem line of a line skipped for its length. */
export function longLineProblem(lineNo: number, bytes: number, limit: number): string {
  return `line ${lineNo}: ${mib(bytes)} long, over the ${mib(limit)} line limit (skipped)`;
}

/** File-level problem lines from how reading ended (damage, a tail after the gzip data, a bomb). */
export function endProblems(end: LineReadEnd, events: number): string[] {
  const out: string[] = [];
  const damage = damageProblem(end.damaged, events);
  if (damage) out.push(damage);
  if (end.trailingBytes > 0) {
    out.push(
      `${end.trailingBytes} bytes after the end of the gzip data are not gzip (ignored): every event before them was read`,
    );
  }
  if (end.bombStoppedAt !== null) {
    out.push(
      `stopped reading after ${mib(end.bombStoppedAt)} decompressed: the file ${BOMB}; read ${events} events up to there`,
    );
  }
  return out;
}

/** The problem line for the duplicates found, if any. */
export function duplicateProblem(duplicates: number): string | null {
  if (duplicates === 0) return null;
  return `${duplicates.toLocaleString('en-US')} event${duplicates === 1 ? '' : 's'} of batches already read (a seq read before, or a batch older than its source's first): skipped, counted as duplicates (a copy's batch counts once, where it was first read; a batch whose lines came out of order is not applied)`;
}

/** The problem line for how the compressed stream ended, if it ended badly. */
export function damageProblem(damaged: string | null, events: number): string | null {
  if (damaged === null) return null;
  if (/unexpected end of file/i.test(damaged)) {
    return `file ends early (truncated gzip): read ${events} events up to there`;
  }
  return `file is damaged (gzip: ${damaged}): read ${events} events up to there`;
}
