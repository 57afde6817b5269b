// The session file format: gzip-compressed JSON lines, a header first, then one line per record.
// Hashes are strings. Reading rebuilds each event from its known fields only, so nothing else a
// file might carry (token ids, say) ever reaches the model.

import {
  INT32_MAX,
  INT32_MIN,
  MAX_ABS_TS_SEC,
  MAX_BLOCK_SIZE,
  MAX_DP_RANK,
  MAX_GROUP_IDX,
  MAX_WINDOW,
  eventTimeProblem,
  isEventTime,
} from '../../shared/event-bounds';
import type {
  EventErrorRecord,
  HashKey,
  EventRecord,
  GapRecord,
  HashTexts,
  KvEvent,
  ResetRecord,
  UndecodedRecord,
} from '../../shared/events';
import type { HashList } from '../../shared/hash-list';
import { encodeEventLine } from './event-line-encoder';
import { quoteValue } from './problems';
import {
  BadLine,
  blockSizeField,
  countField,
  intField,
  labelField,
  placementFields,
  SeqOutOfReach,
  seqField,
  sessionHash,
  tsField,
} from './record-fields';

export const SESSION_FORMAT = 'kvscope-session';
/**
 * 2: an event line leaves out the fields at the value an absent field reads as (event-line-encoder.ts);
 * the lines of both versions read through the same parseRecord.
 */
export const SESSION_VERSION = 2;
/** File name suffix of recordings and saved sessions. */
export const SESSION_SUFFIX = '.kvscope.jsonl.gz';

export interface SessionSource {
  id: string;
  name: string;
  endpoint: string;
  /**
   * Set on a source line when the user removed the source (epoch seconds): its events before the
   * line leave every total from there, as live. A reader that does not know the field reads the
   * line as a source line (unknown fields of a line are ignored), so files stay version 2.
   */
  removedAt?: number;
  /**
   * Set on a source line when its clock offset was measured live (IngestSink.clockOffset): its
   * later batches chart at their ts plus these whole seconds. Old readers ignore it, as removedAt.
   */
  clockOffset?: number;
}

export interface SessionHeader {
  format: typeof SESSION_FORMAT;
  version: number;
  app: string;
  /** ISO 8601 time the recording started. */
  startedAt: string;
  sources: SessionSource[];
}

/** One line after the header; `H`: how an event's hashes are held (a line read back: texts). */
export type SessionRecord<H extends HashList = HashList> =
  | { k: 'event'; rec: EventRecord<H> }
  | { k: 'gap'; rec: GapRecord }
  | { k: 'reset'; rec: ResetRecord }
  | { k: 'undecoded'; rec: UndecodedRecord }
  | { k: 'event-error'; rec: EventErrorRecord }
  | { k: 'source'; rec: SessionSource };

/** The header line's object. */
export function makeHeader(app: string, startedAt: Date, sources: SessionSource[]): SessionHeader {
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    app,
    startedAt: startedAt.toISOString(),
    sources,
  };
}

/** One record as its line (no newline): a pure function of the record, as version 2 writes it. */
export function encodeRecord(r: SessionRecord): string {
  // The hot path of the recording, built by hand.
  if (r.k === 'event') return encodeEventLine(r.rec);
  return JSON.stringify({ k: r.k, ...r.rec });
}

/** Whether a parsed first line is a session header (its format says so; the rest is checked). */
export function isHeader(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === 'object' && v !== null && (v as { format?: unknown }).format === SESSION_FORMAT
  );
}

/**
 * The header as this version reads it, and a problem line per field that is wrong (the field is
 * then ignored) or per version it does not know (it reads what it understands).
 */
export function readHeader(v: Record<string, unknown>): {
  header: SessionHeader;
  problems: string[];
} {
  const problems: string[] = [];
  let version = SESSION_VERSION;
  if (typeof v.version === 'number' && Number.isSafeInteger(v.version) && v.version >= 1) {
    version = v.version;
    if (version > SESSION_VERSION) {
      problems.push(
        `made by a newer KV Scope (version ${version}; this one reads version ${SESSION_VERSION}): what this version understands was read; update KV Scope to read all of it`,
      );
    }
  } else {
    problems.push(
      `header: version ${quoteValue(v.version)} is not a version number (read as version ${SESSION_VERSION})`,
    );
  }
  const text = (key: 'app' | 'startedAt'): string => {
    const x = v[key];
    if (typeof x === 'string' && (key === 'app' || !Number.isNaN(Date.parse(x)))) return x;
    if (x !== undefined) {
      problems.push(
        `header: ${key} ${quoteValue(x)} is not ${key === 'app' ? 'a name' : 'a date'} (ignored)`,
      );
    }
    return '';
  };
  const app = text('app');
  const startedAt = text('startedAt');
  const sources: SessionSource[] = [];
  if (Array.isArray(v.sources)) {
    v.sources.forEach((x: unknown, i) => {
      const src = typeof x === 'object' && x !== null ? sourceOf(x as Obj) : null;
      if (src) sources.push(src);
      else problems.push(`header: sources[${i}] is not a source with an id (ignored)`);
    });
  } else if (v.sources !== undefined) {
    problems.push(`header: sources ${quoteValue(v.sources)} is not a list (ignored)`);
  }
  return { header: { format: SESSION_FORMAT, version, app, startedAt, sources }, problems };
}

type Obj = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const finiteOr = (v: unknown, d: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : d;

function sourceOf(o: Obj): SessionSource | null {
  const id = str(o.id);
  if (id === undefined || id === '') return null;
  return { id, name: str(o.name) ?? id, endpoint: str(o.endpoint) ?? '' };
}

function hashes(v: unknown, type: string, hash: HashCheck): string[] {
  if (!Array.isArray(v)) throw new BadLine(`${type} without a list of string hashes`);
  // Checked in place and kept, not copied: the array is the parsed line's own (nothing else holds
  // it), and a copy per event is garbage on the hot path of opening a session.
  for (const h of v as unknown[]) {
    if (typeof h !== 'string') throw new BadLine(`${type} without a list of string hashes`);
    hash(h, 'block hash');
  }
  return v as string[];
}

function badParent(): never {
  throw new BadLine('parent_block_hash is not a string');
}

type HashCheck = (v: unknown, what: string) => HashKey;

/** A hash the service wrote itself (the event ring's own lines): only its type and length. */
function ownHash(v: unknown, what: string): HashKey {
  return sessionHash(v, what, false);
}

/**
 * A redacted event from a parsed object; throws BadLine when it is not one. `fromFile` holds a
 * file's line to what a frame may carry (a hash's form, a block_size of 1 or more); a line the
 * service wrote itself is read back without those checks (its event came through them).
 */
export function parseEvent(o: Obj, fromFile = true): KvEvent<HashTexts> {
  const type = o.type;
  const hash: HashCheck = fromFile ? sessionHash : ownHash;
  if (type === 'BlockStored') {
    const block_hashes = hashes(o.block_hashes, type, hash);
    const parent = o.parent_block_hash;
    return {
      type,
      block_hashes,
      parent_block_hash:
        parent === null || parent === undefined
          ? null
          : typeof parent === 'string'
            ? hash(parent, 'parent_block_hash')
            : badParent(),
      token_count: countField(o.token_count, 'token_count'),
      block_size: fromFile
        ? blockSizeField(o.block_size)
        : (intField(o.block_size, 'block_size', 0, MAX_BLOCK_SIZE) ?? 0),
      lora_id: intField(o.lora_id, 'lora_id', INT32_MIN, INT32_MAX),
      medium: labelField(o.medium, 'medium'),
      lora_name: labelField(o.lora_name, 'lora_name'),
      extra_keys_count: countField(o.extra_keys_count, 'extra_keys_count'),
      group_idx: intField(o.group_idx, 'group_idx', 0, MAX_GROUP_IDX),
      kv_cache_spec_kind: labelField(o.kv_cache_spec_kind, 'kv_cache_spec_kind'),
      kv_cache_spec_sliding_window: intField(
        o.kv_cache_spec_sliding_window,
        'kv_cache_spec_sliding_window',
        0,
        MAX_WINDOW,
      ),
      metadata_count: countField(o.metadata_count, 'metadata_count'),
      session_id_count: countField(o.session_id_count, 'session_id_count'),

      ...placementFields(o),
    };
  }
  if (type === 'BlockRemoved') {
    const block_hashes = hashes(o.block_hashes, type, hash);
    return {
      type,
      block_hashes,
      medium: labelField(o.medium, 'medium'),
      group_idx: intField(o.group_idx, 'group_idx', 0, MAX_GROUP_IDX),
      ...placementFields(o),
    };
  }
  if (type === 'AllBlocksCleared') return { type, medium: labelField(o.medium, 'medium') };
  throw new BadLine(`unknown event type ${quoteValue(type)}`);
}

/** An event line whose seq is past 2^53 - 1: its batch is not applied (out-of-reach-seq.ts). */
export interface OutOfReachLine {
  outOfReach: { source: string; seq: string; at: number };
}

/**
 * A record from a parsed line, an event line whose seq is out of reach, or the reason the line is
 * bad. An event whose ts is not usable comes back as an event-error record (counted as live),
 * with the reason in `timeError`.
 */
export function parseRecord(
  o: Obj,
  fromFile = true,
): { r: SessionRecord<HashTexts>; timeError: string | null } | OutOfReachLine | string {
  try {
    return parseRecordOrThrow(o, fromFile);
  } catch (e) {
    if (e instanceof BadLine) return e.message;
    throw e;
  }
}

function parseRecordOrThrow(
  o: Obj,
  fromFile: boolean,
): { r: SessionRecord<HashTexts>; timeError: string | null } | OutOfReachLine {
  const source = str(o.source);
  const ok = (r: SessionRecord<HashTexts>) => ({ r, timeError: null });
  switch (o.k) {
    case 'event': {
      if (source === undefined && o.source !== undefined)
        throw new BadLine(`source ${quoteValue(o.source)} is not a string`);
      if (source === undefined || o.seq === undefined || o.ts === undefined)
        throw new BadLine('event without source, seq or ts');
      let seq: number;
      try {
        seq = seqField(o.seq);
      } catch (e) {
        if (!(e instanceof SeqOutOfReach)) throw e;
        // No receive time in a file: the batch's own ts, where it is one, dates the record.
        const at = typeof o.ts === 'number' && eventTimeProblem(o.ts) === null ? o.ts : 0;
        return { outOfReach: { source, seq: e.seq, at } };
      }
      const idx = countField(o.idx, 'idx');
      const time = tsField(o.ts);
      if ('error' in time) {
        const error = `EventTimeError: ${time.error}`;
        return { r: { k: 'event-error', rec: { source, seq, idx, error } }, timeError: time.error };
      }
      if (typeof o.event !== 'object' || o.event === null)
        throw new BadLine('event without its event');
      const event = parseEvent(o.event as Obj, fromFile);
      const dp_rank = intField(o.dp_rank, 'dp_rank', 0, MAX_DP_RANK);
      return ok({ k: 'event', rec: { source, seq, ts: time.ts, dp_rank, idx, event } });
    }
    case 'gap': {
      if (source === undefined) throw new BadLine('gap without source');
      const [from, to] = [seqField(o.from, 'from'), seqField(o.to, 'to')];
      const at = tsField(o.at, 'at');
      if ('error' in at) throw new BadLine(`gap at an unusable time: ${at.error}`);
      const recovered = countField(o.recovered, 'recovered');
      const lost = countField(o.lost, 'lost');
      const rec: GapRecord = { source, from, to, at: at.ts, recovered, lost };
      const since = o.since === undefined ? null : tsField(o.since, 'since');
      if (since !== null && 'ts' in since) rec.since = since.ts;
      return ok({ k: 'gap', rec });
    }
    case 'reset': {
      if (source === undefined) throw new BadLine('reset without source');
      const at = tsField(o.at, 'at');
      if ('error' in at) throw new BadLine(`reset at an unusable time: ${at.error}`);
      const previousSeq = o.previousSeq === undefined ? 0 : seqField(o.previousSeq, 'previousSeq');
      return ok({ k: 'reset', rec: { source, at: at.ts, previousSeq } });
    }
    case 'undecoded': {
      if (source === undefined) throw new BadLine('undecoded record without source');
      const rec: UndecodedRecord = {
        source,
        seq: o.seq === null || o.seq === undefined ? null : seqField(o.seq),
        bytes: countField(o.bytes, 'bytes'),
        error: str(o.error) ?? 'unknown error',
        // Receive time, not an event time: only shown.
        at: finiteOr(o.at, 0),
      };
      return ok({ k: 'undecoded', rec });
    }
    case 'event-error': {
      if (source === undefined || o.seq === undefined)
        throw new BadLine('event-error record without source or seq');
      const rec: EventErrorRecord = {
        source,
        seq: seqField(o.seq),
        idx: countField(o.idx, 'idx'),
        error: str(o.error) ?? 'unknown error',
      };
      return ok({ k: 'event-error', rec });
    }
    case 'source': {
      const src = sourceOf(o);
      if (src === null) throw new BadLine('source record without id');
      if (o.clockOffset !== undefined) {
        const offset = o.clockOffset;
        if (!Number.isSafeInteger(offset) || Math.abs(offset as number) > MAX_ABS_TS_SEC)
          throw new BadLine(`source clockOffset ${quoteValue(offset)} is not whole seconds`);
        src.clockOffset = offset as number;
      }
      if (o.removedAt === undefined) return ok({ k: 'source', rec: src });
      const removedAt = o.removedAt;
      if (typeof removedAt !== 'number' || !isEventTime(removedAt))
        throw new BadLine(`source removedAt ${quoteValue(removedAt)} is not a time in seconds`);
      return ok({ k: 'source', rec: { ...src, removedAt } });
    }
    default:
      throw new BadLine(`unknown record kind ${quoteValue(o.k)}`);
  }
}
