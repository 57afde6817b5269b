// Redacted KV cache events: what leaves the wire decoder. No type here can hold a token id,
// an extra key, a cache salt, metadata values or a session id: only their counts.

import type { HashList } from './hash-list';

/**
 * Canonical text key of a block hash: unsigned (or negative, opaque) integers in decimal as the
 * engine logs them, raw-bytes digests in lowercase hex. Never a JS number: u64 hashes exceed 2^53.
 */
export type HashKey = string;

/** The medium name used when an event carries none. */
export const UNSPECIFIED_MEDIUM = 'unspecified';

/** How a publisher encodes block hashes. */
export type HashKind = 'int' | 'bytes';

/**
 * Hashes as texts: how an event reads back from its line (the event log, a file), and so how the
 * screens and the exports get it.
 */
export type HashTexts = readonly HashKey[];

/**
 * A BlockStored event with prompt content reduced to counts. Field names follow the wire. `H`:
 * how its hashes are held (see hash-list.ts).
 */
export interface BlockStoredEvent<H extends HashList = HashList> {
  type: 'BlockStored';
  /** Texts, or (u64 hashes on the live path) their decimal parts: see hash-list.ts. */
  block_hashes: H;
  parent_block_hash: HashKey | null;
  /** len(token_ids): the tokens themselves never leave the decoder. */
  token_count: number;
  block_size: number;
  lora_id: number | null;
  medium: string | null;
  lora_name: string | null;
  /** How many blocks carried extra keys (multimodal ids, cache salt): presence only. */
  extra_keys_count: number;
  group_idx: number | null;
  kv_cache_spec_kind: string | null;
  kv_cache_spec_sliding_window: number | null;
  /** Entries in SGLang's metadata map / vLLM's `metadata` (e.g. cache_salt): presence only. */
  metadata_count: number;
  /** 1 when the event carried a session_id: presence only. */
  session_id_count: number;
  /** vLLM (mid-2026): where the blocks are, "LOCAL" | "REMOTE"; absent when not sent. */
  locality?: string;
  /** vLLM (mid-2026): the id of the secondary tier that owns the blocks; absent when not sent. */
  ownership?: string;
}

/**
 * Whether a store's blocks form a chain (each block's parent the one before it). vLLM's
 * offloading connector publishes the blocks it moved to CPU / storage as one BlockStored with no
 * parent and no token ids: a set of hashes in whatever order its manager kept them (mixed across
 * requests), not a chain. A store that carries its tokens or names a parent is a chain.
 */
export function storeIsChain(ev: BlockStoredEvent): boolean {
  return ev.parent_block_hash !== null || ev.token_count > 0;
}

export interface BlockRemovedEvent<H extends HashList = HashList> {
  type: 'BlockRemoved';
  block_hashes: H;
  medium: string | null;
  group_idx: number | null;
  /** As on BlockStored: absent when not sent. */
  locality?: string;
  ownership?: string;
}

export interface AllBlocksClearedEvent {
  type: 'AllBlocksCleared';
  medium: string | null;
}

export type KvEvent<H extends HashList = HashList> =
  BlockStoredEvent<H> | BlockRemovedEvent<H> | AllBlocksClearedEvent;
export type KvEventType = KvEvent['type'];
export const KV_EVENT_TYPES: readonly KvEventType[] = [
  'BlockStored',
  'BlockRemoved',
  'AllBlocksCleared',
];

/** One redacted event with where and when it came from. */
export interface EventRecord<H extends HashList = HashList> {
  /** Source id (a connection profile's id, or a session's source name). */
  source: string;
  /** Publisher sequence number of the batch that carried it. */
  seq: number;
  /** Batch timestamp, seconds (normally epoch, not assumed). */
  ts: number;
  dp_rank: number | null;
  /** Position of the event in its batch. */
  idx: number;
  event: KvEvent<H>;
}

/** A message or payload that could not be decoded: its size and the error, never its bytes. */
export interface UndecodedRecord {
  source: string;
  /** Present when the frames were well formed enough to carry one. */
  seq: number | null;
  bytes: number;
  error: string;
  /** Receive time (epoch seconds): an undecodable payload has no batch ts. */
  at: number;
}

/** One event of a decodable batch that was not itself decodable. */
export interface EventErrorRecord {
  source: string;
  seq: number;
  idx: number;
  error: string;
}

/** What a source's publisher sends, learned from what arrived. */
export interface SchemaFingerprint {
  /** Batch encodings seen: positional array and/or map. */
  batch: ('array' | 'map')[];
  /** Event encodings seen. */
  events: ('array' | 'map')[];
  hashes: ('int' | 'bytes' | 'negative-int')[];
  /** Name of the dp-rank field when the batch carried one. */
  rankField: ('data_parallel_rank' | 'attn_dp_rank')[];
  /** Event field names seen (wire names, sorted), including unknown ones. */
  fields: string[];
  /** Field names not known to this version: schema drift worth a look. */
  unknownFields: string[];
}

/** A run of missing sequence numbers, after any replay. */
export interface GapRecord {
  source: string;
  /** First and last missing seq (inclusive). */
  from: number;
  to: number;
  /** How many of them the replay endpoint gave back, and how many are gone. */
  recovered: number;
  lost: number;
  /** Event time (ts of the batch that revealed the gap), seconds. */
  at: number;
  /**
   * Event time of the source's last batch before the gap, where the record comes after later
   * batches (a capture's gap, given once no late batch can fill it); otherwise the model knows it.
   */
  since?: number;
}

/** The publisher started again at seq 0 (an engine restart): not a gap. */
export interface ResetRecord {
  source: string;
  previousSeq: number;
  at: number;
}
