// Building ingest records by hand for the analysis tests.
import type { BlockRemovedEvent, BlockStoredEvent, KvEvent } from '../../shared/events';
import type { IngestRecord } from '../../shared/records';
import type { Holdings } from '../../electron/analysis/holdings';

let seq = 0;

/** A BlockStored event (GPU, block size 16, no parent unless given). */
export function stored(
  hashes: string[],
  o: { parent?: string | null; medium?: string | null; blockSize?: number } = {},
): BlockStoredEvent {
  return {
    type: 'BlockStored',
    block_hashes: hashes,
    parent_block_hash: o.parent ?? null,
    token_count: hashes.length * (o.blockSize ?? 16),
    block_size: o.blockSize ?? 16,
    lora_id: null,
    medium: o.medium === undefined ? 'GPU' : o.medium,
    lora_name: null,
    extra_keys_count: 0,
    group_idx: null,
    kv_cache_spec_kind: null,
    kv_cache_spec_sliding_window: null,
    metadata_count: 0,
    session_id_count: 0,
  };
}

/** A BlockRemoved event (GPU unless given). */
export function removed(hashes: string[], medium: string | null = 'GPU'): BlockRemovedEvent {
  return { type: 'BlockRemoved', block_hashes: hashes, medium, group_idx: null };
}

/** An AllBlocksCleared event. */
export const cleared = (): KvEvent => ({ type: 'AllBlocksCleared', medium: null });

/** One batch of events from source at ts. */
export function batch(
  source: string,
  ts: number,
  events: KvEvent[],
  dpRank: number | null = null,
): IngestRecord {
  seq += 1;
  return {
    k: 'batch',
    meta: { source, seq, ts, dpRank },
    events: events.map((event, idx) => ({ source, seq, ts, dp_rank: dpRank, idx, event })),
  };
}

/** A publisher restart of source. */
export const reset = (source: string, at = 0): IngestRecord => ({
  k: 'reset',
  rec: { source, previousSeq: 10, at },
});

/** The slots holding id, ascending, as an array of their own. */
export function holdersOf(h: Holdings, id: number): number[] {
  const out: number[] = [];
  return out.slice(0, h.holdersInto(id, out));
}
