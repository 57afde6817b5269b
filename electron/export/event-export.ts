// The events of a view as CSV or JSON, with the view's filter applied: every matching event the
// model holds, newest first, read page by page (never all at once). Source names and ISO 8601
// times beside the raw fields; prompt content was never in an event (token ids are a count).

import type { EventFilter, EventRow, ExportFormat } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';
import { isoTime } from './csv';
import { listExport } from './list-export';

const PAGE = 5000;

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
type Flat = Partial<Record<Column, string | number | null>>;

/** One event as flat fields (the CSV row and the JSON object alike). */
function flatten(r: EventRow, name: (id: string) => string): Flat {
  const e = r.event;
  const out: Flat = {
    time_iso: isoTime(r.ts),
    ts: r.ts,
    source: name(r.source),
    source_id: r.source,
    dp_rank: r.dp_rank,
    seq: r.seq,
    idx: r.idx,
    type: e.type,
    medium: e.medium,
  };
  if (e.type === 'AllBlocksCleared') return out;
  Object.assign(out, {
    locality: e.locality ?? null,
    ownership: e.ownership ?? null,
    block_count: e.block_hashes.length,
    block_hashes: e.block_hashes.join(' '),
    group_idx: e.group_idx,
  });
  if (e.type === 'BlockRemoved') return out;
  return Object.assign(out, {
    parent_block_hash: e.parent_block_hash,
    block_size: e.block_size,
    token_count: e.token_count,
    lora_id: e.lora_id,
    lora_name: e.lora_name,
    kv_cache_spec_kind: e.kv_cache_spec_kind,
    kv_cache_spec_sliding_window: e.kv_cache_spec_sliding_window,
    extra_keys_count: e.extra_keys_count,
    metadata_count: e.metadata_count,
    session_id_count: e.session_id_count,
  });
}

/** The matching events, newest first, held still at the newest event there is now. */
function* matching(model: Pick<CacheModel, 'events'>, filter: EventFilter): Generator<EventRow> {
  const upTo = filter.upTo ?? model.events({ offset: 0, limit: 1 }).newest;
  for (let offset = 0; ; offset += PAGE) {
    const page = model.events({ ...filter, upTo, offset, limit: PAGE });
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
    csvRow: (r) => {
      const flat = flatten(r, name);
      return EVENT_CSV_COLUMNS.map((c) => flat[c]);
    },
    // In JSON the hashes are a list of strings.
    jsonRow: (r) => ({
      ...flatten(r, name),
      ...(r.event.type === 'AllBlocksCleared' ? {} : { block_hashes: r.event.block_hashes }),
    }),
  });
}
