// The session file format: gzip-compressed JSON lines, a header first, then one line per record.
// Hashes are strings. Reading rebuilds each event from its known fields only, so nothing else a
// file might carry (token ids, say) ever reaches the model.

import type {
  EventErrorRecord,
  EventRecord,
  GapRecord,
  KvEvent,
  ResetRecord,
  UndecodedRecord,
} from '../../shared/events';
import { quoteValue } from './problems';

export const SESSION_FORMAT = 'kvscope-session';
export const SESSION_VERSION = 1;
/** File name suffix of recordings and saved sessions. */
export const SESSION_SUFFIX = '.kvscope.jsonl.gz';

export interface SessionSource {
  id: string;
  name: string;
  endpoint: string;
}

export interface SessionHeader {
  format: typeof SESSION_FORMAT;
  version: number;
  app: string;
  /** ISO 8601 time the recording started. */
  startedAt: string;
  sources: SessionSource[];
}

/** One line after the header. */
export type SessionRecord =
  | { k: 'event'; rec: EventRecord }
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

/** One record as its line (no newline). */
export function encodeRecord(r: SessionRecord): string {
  if (r.k === 'event') {
    // The hot path of the recording: built by hand to skip a wrapper object per event.
    const e = r.rec;
    return `{"k":"event","source":${JSON.stringify(e.source)},"seq":${e.seq},"ts":${JSON.stringify(e.ts)},"dp_rank":${JSON.stringify(e.dp_rank)},"idx":${e.idx},"event":${JSON.stringify(e.event)}}`;
  }
  return JSON.stringify({ k: r.k, ...r.rec });
}

/** Whether a parsed first line is a session header. */
export function isHeader(v: unknown): v is SessionHeader {
  return (
    typeof v === 'object' && v !== null && (v as { format?: unknown }).format === SESSION_FORMAT
  );
}

type Obj = Record<string, unknown>;

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const numOrNull = (v: unknown): number | null => num(v) ?? null;
const strOrNull = (v: unknown): string | null => str(v) ?? null;

function hashes(v: unknown): string[] | undefined {
  if (!Array.isArray(v) || !v.every((h) => typeof h === 'string')) return undefined;
  return v as string[];
}

/** A redacted event from a parsed object, or the reason it is not one. */
export function parseEvent(o: Obj): KvEvent | string {
  const type = o.type;
  if (type === 'BlockStored') {
    const block_hashes = hashes(o.block_hashes);
    if (!block_hashes) return 'BlockStored without a list of string hashes';
    const parent = o.parent_block_hash;
    if (parent !== null && parent !== undefined && typeof parent !== 'string')
      return 'parent_block_hash is not a string';
    return {
      type,
      block_hashes,
      parent_block_hash: parent ?? null,
      token_count: num(o.token_count) ?? 0,
      block_size: num(o.block_size) ?? 0,
      lora_id: numOrNull(o.lora_id),
      medium: strOrNull(o.medium),
      lora_name: strOrNull(o.lora_name),
      extra_keys_count: num(o.extra_keys_count) ?? 0,
      group_idx: numOrNull(o.group_idx),
      kv_cache_spec_kind: strOrNull(o.kv_cache_spec_kind),
      kv_cache_spec_sliding_window: numOrNull(o.kv_cache_spec_sliding_window),
      metadata_count: num(o.metadata_count) ?? 0,
      session_id_count: num(o.session_id_count) ?? 0,
    };
  }
  if (type === 'BlockRemoved') {
    const block_hashes = hashes(o.block_hashes);
    if (!block_hashes) return 'BlockRemoved without a list of string hashes';
    return { type, block_hashes, medium: strOrNull(o.medium), group_idx: numOrNull(o.group_idx) };
  }
  if (type === 'AllBlocksCleared') return { type, medium: strOrNull(o.medium) };
  return `unknown event type ${quoteValue(type)}`;
}

/** A record from a parsed line, or the reason it is not one. */
export function parseRecord(o: Obj): SessionRecord | string {
  const source = str(o.source);
  switch (o.k) {
    case 'event': {
      const seq = num(o.seq);
      const ts = num(o.ts);
      if (source === undefined || seq === undefined || ts === undefined)
        return 'event without source, seq or ts';
      if (typeof o.event !== 'object' || o.event === null) return 'event without its event';
      const event = parseEvent(o.event as Obj);
      if (typeof event === 'string') return event;
      return {
        k: 'event',
        rec: { source, seq, ts, dp_rank: numOrNull(o.dp_rank), idx: num(o.idx) ?? 0, event },
      };
    }
    case 'gap': {
      const [from, to, at] = [num(o.from), num(o.to), num(o.at)];
      if (source === undefined || from === undefined || to === undefined || at === undefined)
        return 'gap without source, from, to or at';
      return {
        k: 'gap',
        rec: { source, from, to, at, recovered: num(o.recovered) ?? 0, lost: num(o.lost) ?? 0 },
      };
    }
    case 'reset': {
      const at = num(o.at);
      if (source === undefined || at === undefined) return 'reset without source or at';
      return { k: 'reset', rec: { source, at, previousSeq: num(o.previousSeq) ?? 0 } };
    }
    case 'undecoded': {
      if (source === undefined) return 'undecoded record without source';
      const rec: UndecodedRecord = {
        source,
        seq: numOrNull(o.seq),
        bytes: num(o.bytes) ?? 0,
        error: str(o.error) ?? 'unknown error',
        at: num(o.at) ?? 0,
      };
      return { k: 'undecoded', rec };
    }
    case 'event-error': {
      const seq = num(o.seq);
      if (source === undefined || seq === undefined)
        return 'event-error record without source or seq';
      return {
        k: 'event-error',
        rec: { source, seq, idx: num(o.idx) ?? 0, error: str(o.error) ?? 'unknown error' },
      };
    }
    case 'source': {
      const id = str(o.id);
      if (id === undefined) return 'source record without id';
      return { k: 'source', rec: { id, name: str(o.name) ?? id, endpoint: str(o.endpoint) ?? '' } };
    }
    default:
      return `unknown record kind ${quoteValue(o.k)}`;
  }
}
