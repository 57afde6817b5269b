// One KV event, positional array or tagged map, read straight into the redacted shared types.
// token_ids, extra_keys, metadata/cache_salt and session_id are counted while they are skipped:
// their values are never decoded, so they cannot leak.

import type { BlockRemovedEvent, BlockStoredEvent, HashKey, KvEvent } from '../../shared/events';
import { DecimalHashes, decimalKeyText, type HashList } from '../../shared/hash-list';
import {
  CLEARED_POSITIONS,
  F_BLOCK_HASHES,
  F_BLOCK_SIZE,
  F_CACHE_SALT,
  F_EXTRA_KEYS,
  F_GROUP_IDX,
  F_LORA_ID,
  F_LOCALITY,
  F_LORA_NAME,
  F_MEDIUM,
  F_METADATA,
  F_OWNERSHIP,
  F_PARENT,
  F_SESSION_ID,
  F_SPEC_KIND,
  F_SPEC_WINDOW,
  F_TOKEN_IDS,
  F_TYPE,
  fieldIdAt,
  KNOWN_EVENT_FIELDS,
  REMOVED_POSITIONS,
  STORED_POSITIONS,
  T_REMOVED,
  T_STORED,
  TYPE_TAGS,
} from './event-fields';
import {
  INT32_MAX,
  INT32_MIN,
  MAX_BLOCK_SIZE,
  MAX_GROUP_IDX,
  MAX_WINDOW,
  PLACEMENT_LABEL,
} from '../../shared/event-bounds';
import { SchemaError } from './msgpack-reader';
import type { MsgpackReader } from './msgpack-reader';

export const ENC_ARRAY = 1;
export const ENC_MAP = 2;

/** At most this many distinct unknown field names are kept per batch (drift, not a dump). */
const MAX_UNKNOWN_FIELDS = 32;
/** Unknown field names longer than this, or not identifier-like, are recorded as a placeholder. */
const FIELD_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const ODD_FIELD_NAME = '<non-identifier key>';

const TYPE_NAMES = ['BlockStored', 'BlockRemoved', 'AllBlocksCleared'] as const;

/**
 * `${type}.${field}` by field id, for each type name and for an event whose type is not read yet:
 * made once. A field's label names it only in an error, and made per field read it was a string
 * per field of every event (about 20 a message of vLLM's, the most of the decoder's garbage).
 */
const labelsOf = (typeName: string): readonly string[] =>
  KNOWN_EVENT_FIELDS.map((field) => `${typeName}.${field}`);
const TYPE_LABELS: readonly (readonly string[])[] = TYPE_NAMES.map(labelsOf);
const UNTYPED_LABELS = labelsOf('event');

/** What the events of one batch looked like: merged into the batch's shape. */
export class ShapeCollector {
  fieldMask = 0;
  encodings = 0;
  unknownFields: string[] = [];

  addUnknown(name: string): void {
    const safe = FIELD_NAME_RE.test(name) ? name : ODD_FIELD_NAME;
    if (this.unknownFields.length < MAX_UNKNOWN_FIELDS && !this.unknownFields.includes(safe)) {
      this.unknownFields.push(safe);
    }
  }
}

/** The fields of the event being read (reused from event to event). */
class Fields {
  type = -1;
  seen = 0;
  /** Set per event by readEvent: read u64 block hashes as their decimal parts (hash-list.ts). */
  hashParts = false;
  hashes: HashList = [];
  parent: HashKey | null = null;
  tokenCount = 0;
  blockSize = 0;
  loraId: number | null = null;
  medium: string | null = null;
  loraName: string | null = null;
  extraKeysCount = 0;
  groupIdx: number | null = null;
  specKind: string | null = null;
  specWindow: number | null = null;
  metadataCount = 0;
  sessionIdCount = 0;
  locality: string | null = null;
  ownership: string | null = null;

  reset(): void {
    this.type = -1;
    this.seen = 0;
    this.hashes = [];
    this.parent = null;
    this.tokenCount = 0;
    this.blockSize = 0;
    this.loraId = null;
    this.medium = null;
    this.loraName = null;
    this.extraKeysCount = 0;
    this.groupIdx = null;
    this.specKind = null;
    this.specWindow = null;
    this.metadataCount = 0;
    this.sessionIdCount = 0;
    this.locality = null;
    this.ownership = null;
  }
}

const f = new Fields();

// Plausibility bounds (shared/event-bounds.ts): a field outside them is a bad event, not a value to
// show. They also keep a misframed payload from passing a prompt token off as a block size or a LoRA id.

/** `v` when min <= v <= max, else a SchemaError naming the field and the range. */
export function ranged(v: number, what: string, min: number, max: number): number {
  if (v < min || v > max) throw new SchemaError(`${what}: expected an int in ${min}..${max}`);
  return v;
}

function rangedOrNull(r: MsgpackReader, what: string, min: number, max: number): number | null {
  return r.nil() ? null : ranged(r.int(what), what, min, max);
}

/** Reads the type tag string at the cursor into a type id. */
export function readTypeTag(r: MsgpackReader): number {
  const len = r.strHeader();
  if (len < 0) throw r.mismatch('event type', 'a string tag');
  for (let t = 0; t < TYPE_TAGS.length; t++) {
    if (r.bodyEquals(len, TYPE_TAGS[t] as Uint8Array)) {
      r.pos += len;
      return t;
    }
  }
  throw new SchemaError(
    'event type: not one of BlockStored, BlockRemoved, AllBlocksCleared (a newer engine?)',
  );
}

/** Counts what a presence-only value holds (map/array entries, 1 for a scalar), skipping it. */
export function countPresence(r: MsgpackReader): number {
  if (r.nil()) return 0;
  const start = r.pos;
  let n = r.mapHeader();
  if (n < 0) n = r.arrayHeader();
  r.pos = start;
  r.skip();
  return n < 0 ? 1 : n;
}

/** Reads `extra_keys`: nil or an array; counts its non-nil entries without decoding them. */
export function countExtraKeys(r: MsgpackReader, what: string): number {
  if (r.nil()) return 0;
  const n = r.arrayHeader();
  if (n < 0) throw r.mismatch(what, 'an array or nil');
  // Most entries are nil (a block without extra keys): those are stepped over in this loop, with
  // no call per entry (a stored event of 16 blocks has 16).
  const bytes = r.bytes;
  const end = r.end;
  let p = r.pos;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (p < end && bytes[p] === 0xc0) {
      p++;
      continue;
    }
    r.pos = p;
    // Not nil, or past the end (skip() says truncated).
    count++;
    r.skip();
    p = r.pos;
  }
  r.pos = p;
  return count;
}

function readHashes(r: MsgpackReader, what: string): HashList {
  const n = r.arrayHeader();
  if (n < 0) throw r.mismatch(what, 'an array of hashes');
  if (f.hashParts) {
    const parts: number[] = [];
    for (let i = 0; i < n; i++)
      if (!r.u64HashParts(parts, 2 * i)) return readTexts(r, what, n, i, parts);
    return new DecimalHashes(parts);
  }
  return readTexts(r, what, n, 0, []);
}

/** The n hashes as texts: the first `read` of them read already into parts, the rest at the cursor. */
function readTexts(
  r: MsgpackReader,
  what: string,
  n: number,
  read: number,
  parts: readonly number[],
): HashKey[] {
  const out: HashKey[] = new Array<HashKey>(n);
  for (let i = 0; i < read; i++)
    out[i] = decimalKeyText(parts[2 * i] as number, parts[2 * i + 1] as number);
  for (let i = read; i < n; i++) out[i] = r.hashKey(what);
  return out;
}

// locality and ownership are labels (an enum, a tier id): a short word is kept, anything else
// (a map, a long string) is skipped and named as drift in the fingerprint, never shown or failed.
export const MAX_LABEL = 64;

/** A label at the cursor: a short word, or an int as text; null for nil; undefined (skipped) else. */
function readLabel(r: MsgpackReader): string | null | undefined {
  if (r.nil()) return null;
  const start = r.pos;
  const len = r.strHeader();
  if (len > MAX_LABEL) {
    r.pos += len;
    return undefined;
  }
  if (len >= 0) {
    const v = r.strBody(len);
    return PLACEMENT_LABEL.test(v) ? v : undefined;
  }
  try {
    // A tier id sent as a number.
    return String(r.int('label'));
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    r.pos = start;
    r.skip();
    return undefined;
  }
}

/** Reads the value of field `id` at the cursor into `f`; returns the field id it counted as. */
function readField(
  r: MsgpackReader,
  id: number,
  labels: readonly string[],
  shape: ShapeCollector,
): number {
  switch (id) {
    case F_BLOCK_HASHES:
      f.hashes = readHashes(r, labels[F_BLOCK_HASHES] as string);
      return id;
    case F_PARENT:
      f.parent = r.nil() ? null : r.hashKey(labels[F_PARENT] as string);
      return id;
    case F_TOKEN_IDS:
      f.tokenCount = r.skipIntArray(labels[F_TOKEN_IDS] as string);
      return id;
    case F_BLOCK_SIZE:
      f.blockSize = ranged(
        r.int(labels[F_BLOCK_SIZE] as string),
        labels[F_BLOCK_SIZE] as string,
        1,
        MAX_BLOCK_SIZE,
      );
      return id;
    case F_LORA_ID:
      f.loraId = rangedOrNull(r, labels[F_LORA_ID] as string, INT32_MIN, INT32_MAX);
      return id;
    case F_MEDIUM:
      f.medium = r.strOrNull(labels[F_MEDIUM] as string);
      return id;
    case F_LORA_NAME: {
      // SGLang puts a {cache_salt: ...} metadata map where vLLM has lora_name: tell by type.
      const b = r.peek();
      if ((b >= 0x80 && b <= 0x8f) || b === 0xde || b === 0xdf) {
        f.metadataCount += countPresence(r);
        return F_METADATA;
      }
      f.loraName = r.strOrNull(labels[F_LORA_NAME] as string);
      return id;
    }
    case F_EXTRA_KEYS:
      f.extraKeysCount = countExtraKeys(r, labels[F_EXTRA_KEYS] as string);
      return id;
    case F_GROUP_IDX:
      f.groupIdx = rangedOrNull(r, labels[F_GROUP_IDX] as string, 0, MAX_GROUP_IDX);
      return id;
    case F_SPEC_KIND:
      f.specKind = r.strOrNull(labels[F_SPEC_KIND] as string);
      return id;
    case F_SPEC_WINDOW:
      f.specWindow = rangedOrNull(r, labels[F_SPEC_WINDOW] as string, 0, MAX_WINDOW);
      return id;
    case F_METADATA:
    case F_CACHE_SALT:
      f.metadataCount += countPresence(r);
      return id;
    case F_SESSION_ID:
      f.sessionIdCount = r.nil() ? 0 : (r.skip(), 1);
      return id;
    case F_LOCALITY:
    case F_OWNERSHIP: {
      const v = readLabel(r);
      if (v === undefined) shape.addUnknown(KNOWN_EVENT_FIELDS[id] as string);
      else if (id === F_LOCALITY) f.locality = v;
      else f.ownership = v;
      return id;
    }
    default:
      r.skip();
      return id;
  }
}

function required(typeName: string, bit: number): never {
  throw new SchemaError(`${typeName}: missing ${KNOWN_EVENT_FIELDS[bit]}`);
}

/** Adds locality / ownership when the event carried them (absent otherwise: old shapes stay). */
function withPlacement(ev: BlockStoredEvent | BlockRemovedEvent): void {
  if (f.locality !== null) ev.locality = f.locality;
  if (f.ownership !== null) ev.ownership = f.ownership;
}

/** Builds the redacted event from `f` (fixed object shapes, so consumers stay monomorphic). */
function build(): KvEvent {
  if (f.type === T_STORED) {
    if (!(f.seen & (1 << F_BLOCK_HASHES))) required('BlockStored', F_BLOCK_HASHES);
    if (!(f.seen & (1 << F_TOKEN_IDS))) required('BlockStored', F_TOKEN_IDS);
    if (!(f.seen & (1 << F_BLOCK_SIZE))) required('BlockStored', F_BLOCK_SIZE);
    const ev: BlockStoredEvent = {
      type: 'BlockStored',
      block_hashes: f.hashes,
      parent_block_hash: f.parent,
      token_count: f.tokenCount,
      block_size: f.blockSize,
      lora_id: f.loraId,
      medium: f.medium,
      lora_name: f.loraName,
      extra_keys_count: f.extraKeysCount,
      group_idx: f.groupIdx,
      kv_cache_spec_kind: f.specKind,
      kv_cache_spec_sliding_window: f.specWindow,
      metadata_count: f.metadataCount,
      session_id_count: f.sessionIdCount,
    };
    withPlacement(ev);
    return ev;
  }
  if (f.type === T_REMOVED) {
    if (!(f.seen & (1 << F_BLOCK_HASHES))) required('BlockRemoved', F_BLOCK_HASHES);
    const ev: BlockRemovedEvent = {
      type: 'BlockRemoved',
      block_hashes: f.hashes,
      medium: f.medium,
      group_idx: f.groupIdx,
    };
    withPlacement(ev);
    return ev;
  }
  return { type: 'AllBlocksCleared', medium: f.medium };
}

function readPositional(r: MsgpackReader, n: number, shape: ShapeCollector): KvEvent {
  if (n === 0) throw new SchemaError('event: empty array, expected a type tag first');
  f.type = readTypeTag(r);
  const layout =
    f.type === T_STORED
      ? STORED_POSITIONS
      : f.type === T_REMOVED
        ? REMOVED_POSITIONS
        : CLEARED_POSITIONS;
  const typeName = TYPE_NAMES[f.type] as string;
  const labels = TYPE_LABELS[f.type] as readonly string[];
  let seen = 1 << F_TYPE;
  for (let i = 1; i < n; i++) {
    const id = layout[i];
    if (id === undefined) {
      r.skip();
      shape.addUnknown(`${typeName}[${i}]`);
      continue;
    }
    seen |= 1 << readField(r, id, labels, shape);
  }
  f.seen = seen;
  shape.fieldMask |= seen;
  return build();
}

/** Matches the map key at the cursor against the known fields; -1 (name recorded) if unknown. */
function readKey(r: MsgpackReader, shape: ShapeCollector): number {
  const len = r.strHeader();
  if (len < 0) throw r.mismatch('event map key', 'a string');
  const id = fieldIdAt(r.bytes, r.pos, len);
  if (id >= 0) {
    r.pos += len;
    return id;
  }
  shape.addUnknown(r.strBody(len));
  return -1;
}

function readMap(r: MsgpackReader, n: number, shape: ShapeCollector): KvEvent {
  // The tag may come anywhere: read every field, then decide by type.
  let seen = 0;
  for (let i = 0; i < n; i++) {
    const id = readKey(r, shape);
    if (id === F_TYPE) {
      f.type = readTypeTag(r);
      seen |= 1 << F_TYPE;
    } else if (id < 0) {
      r.skip();
    } else {
      const labels = f.type >= 0 ? (TYPE_LABELS[f.type] as readonly string[]) : UNTYPED_LABELS;
      seen |= (1 << id) | (1 << readField(r, id, labels, shape));
    }
  }
  f.seen = seen;
  shape.fieldMask |= seen;
  if (f.type < 0) throw new SchemaError('event: map without a type field');
  return build();
}

/** Reads one event at the cursor. Throws SchemaError (bad event) or MsgpackError (bad bytes). */
export function readEvent(r: MsgpackReader, shape: ShapeCollector, hashParts = false): KvEvent {
  f.reset();
  f.hashParts = hashParts;
  let n = r.arrayHeader();
  if (n >= 0) {
    shape.encodings |= ENC_ARRAY;
    return readPositional(r, n, shape);
  }
  n = r.mapHeader();
  if (n >= 0) {
    shape.encodings |= ENC_MAP;
    return readMap(r, n, shape);
  }
  throw r.mismatch('event', 'an array or a map');
}
