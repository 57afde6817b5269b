import type { EventRecord, HashTexts, KvEvent } from '../../shared/events';
import type { IngestRecord } from '../../shared/records';

let seq = 0;

/** A BlockStored record. */
export function stored(
  source: string,
  ts: number,
  hashes: string[],
  parent: string | null = null,
  medium: string | null = 'GPU',
): EventRecord<HashTexts> {
  const event: KvEvent<HashTexts> = {
    type: 'BlockStored',
    block_hashes: hashes,
    parent_block_hash: parent,
    token_count: hashes.length * 16,
    block_size: 16,
    lora_id: null,
    medium,
    lora_name: null,
    extra_keys_count: 0,
    group_idx: null,
    kv_cache_spec_kind: null,
    kv_cache_spec_sliding_window: null,
    metadata_count: 0,
    session_id_count: 0,
  };
  return record(source, ts, event);
}

/** A BlockRemoved record. */
export function removed(
  source: string,
  ts: number,
  hashes: string[],
  medium: string | null = 'GPU',
): EventRecord<HashTexts> {
  return record(source, ts, {
    type: 'BlockRemoved',
    block_hashes: hashes,
    medium,
    group_idx: null,
  });
}

/** An AllBlocksCleared record. */
export function cleared(source: string, ts: number): EventRecord<HashTexts> {
  return record(source, ts, { type: 'AllBlocksCleared', medium: null });
}

/** A record of rank 0 with the next seq. */
function record(source: string, ts: number, event: KvEvent<HashTexts>): EventRecord<HashTexts> {
  return { source, seq: seq++, ts, dp_rank: 0, idx: 0, event };
}

/** The records of one delivered batch as the IngestRecord a source hands on. */
export function batch(records: EventRecord[]): IngestRecord {
  const head = records[0] as EventRecord;
  return {
    k: 'batch',
    meta: { source: head.source, seq: head.seq, ts: head.ts, dpRank: head.dp_rank },
    events: records,
  };
}
