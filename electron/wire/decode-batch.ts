// An EventBatch payload → redacted events. One bad event costs that event only; a payload that
// is not a batch becomes one error with its size and the error class, never its bytes.

import { MAX_DP_RANK, eventTimeProblem } from '../../shared/event-bounds';
import type { EventRecord } from '../../shared/events';
import { ENC_ARRAY, ENC_MAP, ShapeCollector, ranged, readEvent } from './decode-event';
import { fieldNamesOf } from './event-fields';
import {
  HASH_BYTES,
  HASH_INT,
  HASH_NEGATIVE,
  MsgpackError,
  MsgpackReader,
  SchemaError,
} from './msgpack-reader';

export { ENC_ARRAY, ENC_MAP } from './decode-event';
export { HASH_BYTES, HASH_INT, HASH_NEGATIVE } from './msgpack-reader';

/** Payloads above this are refused unread unless the caller sets another limit. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export type RankField = 'data_parallel_rank' | 'attn_dp_rank';

/** What one batch looked like on the wire (bitmasks: cheap to build and merge per batch). */
export interface BatchShape {
  batch: 'array' | 'map';
  /** ENC_ARRAY | ENC_MAP bits of the event encodings seen. */
  eventEncodings: number;
  /** HASH_INT | HASH_BYTES | HASH_NEGATIVE bits of the block hashes seen. */
  hashKinds: number;
  /** The rank field's name when the batch carried a rank (positional: data_parallel_rank). */
  rankField: RankField | null;
  /** Bits of the known event fields seen (ids in event-fields.ts). */
  fieldMask: number;
  /** Names of unknown fields seen (capped); batch-level ones are prefixed `batch.`. */
  unknownFields: readonly string[];
}

/**
 * A decoded event is already the record a sink takes (source and seq as the caller named them, the
 * batch's ts and rank): no object per event is made only to be copied into another at once.
 */
export type DecodedEvent = EventRecord;

export interface EventError {
  idx: number;
  error: string;
}

export type DecodeResult =
  | {
      ok: true;
      /**
       * The batch time, or null when it was not usable (not finite, or absurd: see
       * shared/event-bounds.ts); then events is empty and every event is in errors.
       */
      ts: number | null;
      dpRank: number | null;
      events: DecodedEvent[];
      errors: EventError[];
      shape: BatchShape;
    }
  | { ok: false; bytes: number; error: string; oversized: boolean };

export interface DecodeOptions {
  maxPayloadBytes?: number;
  /**
   * u64 block hashes as their decimal parts, no text (shared/hash-list.ts): the live path's
   * consumers take them; other kinds of hash stay texts.
   */
  hashParts?: boolean;
}

const describe = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message}` : 'Error: unknown failure';

/** Who the records of a batch are from: the caller's source id and the batch's seq. */
export interface RecordOrigin {
  source: string;
  seq: number;
}

const NO_ORIGIN: RecordOrigin = { source: '', seq: 0 };

/** Reads the events array at the cursor, isolating each bad event. */
function readEvents(
  r: MsgpackReader,
  shape: ShapeCollector,
  events: DecodedEvent[],
  errors: EventError[],
  origin: RecordOrigin,
  hashParts: boolean,
): void {
  const n = r.arrayHeader();
  if (n < 0) throw r.mismatch('batch events', 'an array');
  for (let idx = 0; idx < n; idx++) {
    const start = r.pos;
    const unknownMark = shape.unknownFields.length;
    try {
      const event = readEvent(r, shape, hashParts);
      // ts and dp_rank are set once the whole batch is read (a map batch may name them last).
      events.push({ source: origin.source, seq: origin.seq, ts: 0, dp_rank: null, idx, event });
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      errors.push({ idx, error: describe(e) });
      // Key names read from a misframed event may be payload bytes: keep only sound events' names.
      shape.unknownFields.length = unknownMark;
      // The bytes are sound, only the shape is not: step over the whole event.
      r.pos = start;
      r.skip();
    }
  }
}

function readRank(r: MsgpackReader, key: RankField): number | null {
  return r.nil() ? null : ranged(r.int(`batch ${key}`), `batch ${key}`, 0, MAX_DP_RANK);
}

interface BatchHead {
  ts: number | undefined;
  dpRank: number | null;
  rankField: RankField | null;
  sawEvents: boolean;
}

function readPositionalBatch(
  r: MsgpackReader,
  n: number,
  shape: ShapeCollector,
  out: DecodedEvent[],
  errors: EventError[],
  origin: RecordOrigin,
  hashParts: boolean,
): BatchHead {
  if (n < 2)
    throw new SchemaError(`batch: expected [ts, events, data_parallel_rank?], got ${n} entries`);
  const ts = r.number('batch ts');
  readEvents(r, shape, out, errors, origin, hashParts);
  let dpRank: number | null = null;
  if (n >= 3) dpRank = readRank(r, 'data_parallel_rank');
  for (let i = 3; i < n; i++) {
    r.skip();
    shape.addUnknown(`batch[${i}]`);
  }
  return { ts, dpRank, rankField: dpRank === null ? null : 'data_parallel_rank', sawEvents: true };
}

function readMapBatch(
  r: MsgpackReader,
  n: number,
  shape: ShapeCollector,
  out: DecodedEvent[],
  errors: EventError[],
  origin: RecordOrigin,
  hashParts: boolean,
): BatchHead {
  const head: BatchHead = { ts: undefined, dpRank: null, rankField: null, sawEvents: false };
  for (let i = 0; i < n; i++) {
    const len = r.strHeader();
    if (len < 0) throw r.mismatch('batch map key', 'a string');
    const key = r.strBody(len);
    if (key === 'ts') head.ts = r.number('batch ts');
    else if (key === 'events') {
      readEvents(r, shape, out, errors, origin, hashParts);
      head.sawEvents = true;
    } else if (key === 'data_parallel_rank' || key === 'attn_dp_rank') {
      head.dpRank = readRank(r, key);
      if (head.dpRank !== null) head.rankField = key;
    } else {
      r.skip();
      shape.addUnknown(`batch.${key}`);
    }
  }
  if (head.ts === undefined) throw new SchemaError('batch: map without ts');
  if (!head.sawEvents) throw new SchemaError('batch: map without events');
  return head;
}

/**
 * A batch whose time is unusable keeps its events as event errors (counted, never applied): no
 * rate bin, lifetime or marker can be placed at a time that is not finite or absurd.
 */
function timeErrors(problem: string, events: DecodedEvent[], errors: EventError[]): EventError[] {
  const error = `EventTimeError: ${problem}`;
  const out: EventError[] = [...errors, ...events.map((e) => ({ idx: e.idx, error }))];
  return out.sort((a, b) => a.idx - b.idx);
}

/**
 * Decodes one EventBatch payload into redacted event records of `origin` (source and seq; blank
 * when not given); never throws, never echoes the bytes.
 */
export function decodeBatch(
  payload: Uint8Array,
  options?: DecodeOptions,
  origin: RecordOrigin = NO_ORIGIN,
): DecodeResult {
  const bytes = payload.byteLength;
  const max = options?.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  if (bytes > max) {
    return {
      ok: false,
      bytes,
      oversized: true,
      error: `PayloadTooLarge: ${bytes} bytes is over the ${max}-byte limit (maxPayloadBytes); not decoded`,
    };
  }
  const hashParts = options?.hashParts === true;
  try {
    const r = new MsgpackReader(payload);
    const shape = new ShapeCollector();
    const events: DecodedEvent[] = [];
    const errors: EventError[] = [];
    let head: BatchHead;
    let batch: 'array' | 'map';
    let n = r.arrayHeader();
    if (n >= 0) {
      batch = 'array';
      head = readPositionalBatch(r, n, shape, events, errors, origin, hashParts);
    } else if ((n = r.mapHeader()) >= 0) {
      batch = 'map';
      head = readMapBatch(r, n, shape, events, errors, origin, hashParts);
    } else {
      throw r.mismatch('batch', 'an array [ts, events, rank?] or a map');
    }
    if (r.pos !== r.end) {
      throw new MsgpackError(
        `${r.end - r.pos} trailing bytes after the batch (${r.end} bytes in all)`,
      );
    }
    const ts = head.ts as number;
    const tsProblem = eventTimeProblem(ts);
    if (tsProblem === null) {
      for (let i = 0; i < events.length; i++) {
        const e = events[i] as DecodedEvent;
        e.ts = ts;
        e.dp_rank = head.dpRank;
      }
    }
    return {
      ok: true,
      ts: tsProblem === null ? ts : null,
      dpRank: head.dpRank,
      events: tsProblem === null ? events : [],
      errors: tsProblem === null ? errors : timeErrors(tsProblem, events, errors),
      shape: {
        batch,
        eventEncodings: shape.encodings,
        hashKinds: r.hashKinds,
        rankField: head.rankField,
        fieldMask: shape.fieldMask,
        unknownFields: shape.unknownFields,
      },
    };
  } catch (e) {
    return { ok: false, bytes, oversized: false, error: describe(e) };
  }
}

/** The usable time of a decoded batch, or null (undecoded, or its ts was not usable). */
export function batchTime(d: DecodeResult): number | null {
  return d.ok ? d.ts : null;
}

/** The shape in words: encodings, hash kinds and the sorted wire names of the fields seen. */
export function describeShape(shape: BatchShape): {
  batch: 'array' | 'map';
  events: ('array' | 'map')[];
  hashes: ('int' | 'bytes' | 'negative-int')[];
  rankField: RankField | null;
  fields: string[];
  unknownFields: string[];
} {
  const events: ('array' | 'map')[] = [];
  if (shape.eventEncodings & ENC_ARRAY) events.push('array');
  if (shape.eventEncodings & ENC_MAP) events.push('map');
  const hashes: ('int' | 'bytes' | 'negative-int')[] = [];
  if (shape.hashKinds & HASH_INT) hashes.push('int');
  if (shape.hashKinds & HASH_BYTES) hashes.push('bytes');
  if (shape.hashKinds & HASH_NEGATIVE) hashes.push('negative-int');
  return {
    batch: shape.batch,
    events,
    hashes,
    rankField: shape.rankField,
    // A known field with a value of an unknown shape is in both: named once.
    fields: [...new Set([...fieldNamesOf(shape.fieldMask), ...shape.unknownFields])].sort(),
    unknownFields: [...shape.unknownFields].sort(),
  };
}
