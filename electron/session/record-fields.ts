// Checks of the values a file's line carries, for the session reader and the capture importer:
// hashes, seqs, times and counts within the bounds the wire decoder holds live to
// (shared/event-bounds.ts). A value outside them makes the line bad (a problem line, the rest
// kept); a time outside them makes its events event errors, as live.

import {
  MAX_BLOCK_SIZE,
  MAX_COUNT,
  MAX_HASH_HEX_CHARS,
  eventTimeProblem,
  isPlacementLabel,
} from '../../shared/event-bounds';
import type { HashKey } from '../../shared/events';
import { hashKeyKind, isIntHashKey, isNegativeIntHashKey } from '../wire/hash-key';
import { quoteValue } from './problems';

/** Thrown by the checks below: the line is bad, for the reason given. */
export class BadLine extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BadLine';
  }
}

/**
 * A seq past 2^53 - 1: a bad line where a gap or a reset names it; an event line of it is a batch
 * not applied, counted as undecoded (out-of-reach-seq.ts), as a live frame of that seq is.
 */
export class SeqOutOfReach extends BadLine {
  constructor(
    reason: string,
    /** The seq as a problem line shows it: its digits, or their count past 24 (a JSON number already rounded reads as its rounded value). */
    readonly seq: string,
  ) {
    super(reason);
    this.name = 'SeqOutOfReach';
  }
}

const DIGITS = /^-?\d+$/;

/** A value as its integer, exactly: a JSON number, or a decimal string (a quoted long literal). */
function exactInt(v: unknown): bigint | null {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : null;
  if (typeof v !== 'string' || !DIGITS.test(v)) return null;
  // Past 40 digits only the sign matters: it is beyond every bound (and BigInt stays cheap).
  if (v.length > 40) return v.startsWith('-') ? -HUGE : HUGE;
  return BigInt(v);
}

const HUGE = 10n ** 40n;

/**
 * An integer field in [min, max]; undefined and null read as null. A number too large for a double
 * to hold exactly has already lost digits, so it is out of range whatever the bound.
 */
export function intField(v: unknown, what: string, min: number, max: number): number | null {
  if (v === undefined || v === null) return null;
  // The common case, a plain JSON number, without a BigInt.
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max) return v;
  const n = exactInt(v);
  if (n === null || n < BigInt(min) || n > BigInt(max) || (typeof v === 'number' && !isSafe(v))) {
    throw new BadLine(
      `${what} ${describe(v)} is out of range (a whole number from ${min} to ${max})`,
    );
  }
  return Number(n);
}

/**
 * A BlockStored's block_size: from 1 to MAX_BLOCK_SIZE where the line gives one, as the wire
 * decoder holds a live event to (a block of 0 tokens is none), so a file never shows what a frame
 * refuses. Absent, it reads as 0, "not given" (version 2 leaves defaults out; a capture may lack it).
 */
export function blockSizeField(v: unknown): number {
  return v === undefined ? 0 : (intField(v, 'block_size', 1, MAX_BLOCK_SIZE) ?? 0);
}

/**
 * A text label (medium, LoRA name, spec kind): undefined and null read as null. Any other type is a
 * bad line: read as null, `"medium": ["GPU"]` made a cache of its own, "unspecified", unsaid.
 */
export function labelField(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  throw new BadLine(`${what} ${describe(v)} is not a string`);
}

/** A count field (token_count, presence counts): a whole number from 0 to MAX_COUNT, 0 if absent. */
export function countField(v: unknown, what: string): number {
  return intField(v, what, 0, MAX_COUNT) ?? 0;
}

const isSafe = (v: number): boolean => Number.isSafeInteger(v);

/**
 * A seq (DESIGN: u64). Records keep seqs as numbers, exact below 2^53; a seq beyond that is a bad
 * line that says so, never a rounded seq that would merge or split batches.
 */
export function seqField(v: unknown, what = 'seq'): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  const n = exactInt(v);
  if (n === null || n < 0n) throw new BadLine(`${what} ${describe(v)} is not a whole number >= 0`);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || (typeof v === 'number' && !isSafe(v))) {
    throw new SeqOutOfReach(
      `${what} ${describe(v)} is beyond 2^53: this version keeps seqs exact only below 9007199254740992`,
      describe(v),
    );
  }
  return Number(n);
}

/**
 * The batch time of a line (`what`: the field's name): the time, or why it is not usable (its
 * events become event errors).
 */
export function tsField(v: unknown, what = 'ts'): { ts: number } | { error: string } {
  if (typeof v === 'string' && DIGITS.test(v)) v = Number(v);
  if (v === null) return { error: `batch ${what} is null (it was NaN or Infinity when written)` };
  if (v === undefined) throw new BadLine(`${what} is missing`);
  if (typeof v !== 'number') throw new BadLine(`${what} ${describe(v)} is not a number`);
  const problem = eventTimeProblem(v);
  return problem === null ? { ts: v } : { error: problem };
}

/**
 * A session file's hash: a key as the decoder writes one (a u64 or, as engines hashing with
 * Python's builtin hash() publish, a negative int64 in decimal; a digest's bytes in lowercase
 * hex), at most MAX_HASH_HEX_CHARS long: a 5,000-digit "hash" is not one, and would ride in
 * every frame; "-05" or "0xAB" is no key a frame could carry.
 */
export function sessionHash(v: unknown, what: string, checkForm = true): HashKey {
  if (typeof v !== 'string') throw new BadLine(`${what} ${describe(v)} is not a string`);
  // The u64 test first: it is the common key, and a loop over its digits, no regex.
  if (checkForm && isIntHashKey(v)) return v;
  if (v.length > MAX_HASH_HEX_CHARS) throw new BadLine(`${what} ${describe(v)} ${TOO_LONG}`);
  // "": an empty bytes hash, as the decoder writes one (vLLM's fixture frames carry them).
  if (checkForm && v !== '' && hashKeyKind(v) === null)
    throw new BadLine(`${what} ${describe(v)} ${NOT_A_KEY}`);
  return v;
}

const NOT_A_KEY =
  'is not a block hash (a 64-bit integer in decimal, or a digest in lowercase hex of whole bytes)';

const TOO_LONG = `is longer than any block hash (at most ${MAX_HASH_HEX_CHARS} characters)`;

/**
 * A capture's hash: a JSON integer (read losslessly, so a long one arrives as a decimal string)
 * that fits 64 bits, or a hex string of whole bytes (optionally 0x-prefixed, either case: read as
 * the lowercase key the decoder makes of those bytes).
 */
export function captureHash(v: unknown, what: string): HashKey {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return String(v);
    throw new BadLine(`${what} ${describe(v)} is not an integer or a hex string of whole bytes`);
  }
  if (typeof v !== 'string')
    throw new BadLine(`${what} ${describe(v)} is not an integer or a hex string of whole bytes`);
  if (v.length > MAX_HASH_HEX_CHARS + 2) throw new BadLine(`${what} ${describe(v)} ${TOO_LONG}`);
  if (DIGITS.test(v)) {
    if (isIntHashKey(v) || isNegativeIntHashKey(v)) return v;
    // No JSON number starts with 0: "010101" was a quoted string, a digest's hex (read below).
    if (v.charCodeAt(0) !== 0x30) throw new BadLine(`${what} ${describe(v)} does not fit 64 bits`);
  }
  // A digest's bytes, as an engine's log may spell them (0x, upper case): whole bytes only.
  if (/^(0x)?([0-9a-fA-F]{2})+$/.test(v)) return v.replace(/^0x/, '').toLowerCase();
  throw new BadLine(`${what} ${describe(v)} is not an integer or a hex string of whole bytes`);
}

/** A value as a problem line may show it: short numbers as they are, anything else by its kind. */
function describe(v: unknown): string {
  if (typeof v === 'string' && DIGITS.test(v)) {
    return v.length <= 24 ? v : `of ${v.replace('-', '').length} digits`;
  }
  return quoteValue(v);
}

/**
 * An event's locality and ownership from a file's object, each only when it is a label
 * (shared/event-bounds.ts); a number (a tier id) reads as its text. Anything else is left out:
 * a field newer files may shape otherwise never makes the line bad.
 */
export function placementFields(o: Record<string, unknown>): {
  locality?: string;
  ownership?: string;
} {
  const out: { locality?: string; ownership?: string } = {};
  const label = (v: unknown): string | undefined => {
    const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
    return isPlacementLabel(s) ? s : undefined;
  };
  const locality = label(o.locality);
  const ownership = label(o.ownership);
  if (locality !== undefined) out.locality = locality;
  if (ownership !== undefined) out.ownership = ownership;
  return out;
}
