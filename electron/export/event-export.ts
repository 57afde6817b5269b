// The events of a view as CSV or JSON, with the view's filter applied: every matching event the
// model holds, newest first, read page by page (never all at once). Source names and ISO 8601
// times beside the raw fields; prompt content was never in an event (token ids are a count).

import type { EventFilter, EventRow, ExportFormat } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';
import { isoTime } from './csv';
import { listExport } from './list-export';

// Each page scans the ring once: big pages, few scans (the ring bounds what one holds).
const PAGE = 25_000;

export const EVENT_CSV_COLUMNS = [
  'time_iso',
  'ts',
  'source',
  'source_id',
  'dp_rank',
  'seq',
  'idx',
  'type',
  'medium',
  'locality',
  'ownership',
  'block_count',
  'block_hashes',
  'parent_block_hash',
  'block_size',
  'token_count',
  'lora_id',
  'lora_name',
  'group_idx',
  'kv_cache_spec_kind',
  'kv_cache_spec_sliding_window',
  'extra_keys_count',
  'metadata_count',
  'session_id_count',
] as const;

type Column = (typeof EVENT_CSV_COLUMNS)[number];
type Flat = Record<Column, string | number | null>;

/**
 * One event as flat fields, every column present in the order of EVENT_CSV_COLUMNS (null where
 * the event has no such field): one object shape for every row, its values the CSV line.
 */
function flatten(r: EventRow, name: (id: string) => string): Flat {
  const e = r.event;
  const blocks = e.type === 'AllBlocksCleared' ? null : e;
  const s = e.type === 'BlockStored' ? e : null;
  return {
    time_iso: isoTime(r.ts),
    ts: r.ts,
    source: name(r.source),
    source_id: r.source,
    dp_rank: r.dp_rank,
    seq: r.seq,
    idx: r.idx,
    type: e.type,
    medium: e.medium,
    locality: blocks?.locality ?? null,
    ownership: blocks?.ownership ?? null,
    block_count: blocks ? blocks.block_hashes.length : null,
    block_hashes: blocks ? blocks.block_hashes.join(' ') : null,
    parent_block_hash: s ? s.parent_block_hash : null,
    block_size: s ? s.block_size : null,
    token_count: s ? s.token_count : null,
    lora_id: s ? s.lora_id : null,
    lora_name: s ? s.lora_name : null,
    group_idx: blocks ? blocks.group_idx : null,
    kv_cache_spec_kind: s ? s.kv_cache_spec_kind : null,
    kv_cache_spec_sliding_window: s ? s.kv_cache_spec_sliding_window : null,
    extra_keys_count: s ? s.extra_keys_count : null,
    metadata_count: s ? s.metadata_count : null,
    session_id_count: s ? s.session_id_count : null,
  };
}

/**
 * The matching events, newest first, held at the newest event there is now: pages taken while
 * the export is written still line up (what the ring drops meanwhile is left out).
 */
function* matching(model: Pick<CacheModel, 'events'>, filter: EventFilter): Generator<EventRow> {
  const upTo = filter.upTo ?? model.events({ offset: 0, limit: 1 }).newest;
  for (let offset = 0; ; offset += PAGE) {
    const page = model.events({ ...filter, upTo, offset, limit: PAGE });
    // Past the end, the log answers its last page from another offset (a held list's reader):
    // after events that filled whole pages, that page again and again.
    if (page.offset !== offset) return;
    yield* page.rows;
    if (page.rows.length < PAGE) return;
  }
}

/** The export's text, chunk by chunk (a header, then an event at a time). */
export function eventExport(
  model: Pick<CacheModel, 'events'>,
  filter: EventFilter,
  format: ExportFormat,
  name: (id: string) => string,
): Generator<string> {
  return listExport(matching(model, filter), format, filter, {
    kind: 'events',
    columns: EVENT_CSV_COLUMNS,
    csvRow: (r) => Object.values(flatten(r, name)),
    // In JSON the hashes are a list of strings.
    jsonRow: (r) => ({
      ...flatten(r, name),
      ...(r.event.type === 'AllBlocksCleared' ? {} : { block_hashes: r.event.block_hashes }),
    }),
  });
}
