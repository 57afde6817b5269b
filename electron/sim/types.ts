// The simulator's raw events: exactly what an engine publishes, token ids included.
// These never leave electron/sim and the tests: KV Scope's decoder is what strips them.
import type { HashKind } from '../../shared/events';

/** A block hash as published: a u64 bigint or a 32-byte digest. */
export type SimHash = bigint | Uint8Array;

export interface RawBlockStored {
  type: 'BlockStored';
  block_hashes: SimHash[];
  parent_block_hash: SimHash | null;
  token_ids: number[];
  block_size: number;
  lora_id: number | null;
  medium: string | null;
  lora_name: string | null;
  extra_keys: (unknown[] | null)[] | null;
  group_idx: number | null;
  kv_cache_spec_kind: string | null;
  kv_cache_spec_sliding_window: number | null;
}

export interface RawBlockRemoved {
  type: 'BlockRemoved';
  block_hashes: SimHash[];
  medium: string | null;
  group_idx: number | null;
}

export interface RawAllBlocksCleared {
  type: 'AllBlocksCleared';
}

export type RawEvent = RawBlockStored | RawBlockRemoved | RawAllBlocksCleared;

/** 'array': legacy positional batch and events; 'map': positional batch of tagged-map events. */
export type WireFormat = 'array' | 'map';

/** One message as the simulator published it (or kept only for replay). */
export interface PublishedBatch {
  rank: number;
  seq: number;
  /** Batch ts (seconds); 0 for a garbage message. */
  ts: number;
  /** The raw events with token ids; empty for a garbage message. */
  events: RawEvent[];
  /** The exact payload frame. */
  payload: Uint8Array;
  /** Kept for replay but not sent on PUB (faults.dropFromPub). */
  droppedFromPub: boolean;
  /** The payload is garbage bytes on purpose (faults.garbageEvery). */
  garbage: boolean;
}

/** Counts of what one rank (or all ranks) published, for comparison with KV Scope's totals. */
export interface SimCounts {
  /** Every message with a seq, garbage included. */
  messages: number;
  /** Decodable batches. */
  batches: number;
  garbage: number;
  droppedFromPub: number;
  events: { BlockStored: number; BlockRemoved: number; AllBlocksCleared: number };
  /** Sum of len(block_hashes) over BlockStored / BlockRemoved. */
  storedBlocks: number;
  removedBlocks: number;
  clears: number;
  /** Distinct resident hashes per medium ("GPU", "CPU") after everything published. */
  resident: Record<string, number>;
}

export interface SimRankStats extends SimCounts {
  rank: number;
  /** Seq of the last message (after a restart, counting from 0 again); null before any. */
  lastSeq: number | null;
  restarts: number;
  /** Canonical hash keys (decimal / lowercase hex) resident per medium: a copy. */
  residentHashes: Record<string, Set<string>>;
}

export interface SimStats {
  ranks: SimRankStats[];
  /** Sums over ranks; `resident` sums per-rank counts (a prefix held by two ranks counts twice). */
  total: SimCounts;
}

export interface SimFaults {
  /** Not sent on PUB but kept for replay. */
  dropFromPub?: (seq: bigint, rank: number) => boolean;
  /** Every Nth message (per rank) is garbage bytes, still with a valid seq. */
  garbageEvery?: number;
}

export interface SimOptions {
  /** Interface to bind on; default 127.0.0.1. */
  host?: string;
  /** Base PUB port; rank r uses port + r. 0 or omitted: ephemeral ports. */
  port?: number;
  /** Default true. false: connect the PUB socket out to `connectTo` (+ r), as llm-d's simulator does. */
  bind?: boolean;
  connectTo?: string;
  /** true: a ROUTER replay endpoint per rank (ephemeral port); a number: its base port. */
  replay?: boolean | number;
  /** Batches kept for replay per rank; default vLLM's buffer_steps; 'unbounded' keeps every one. */
  replayBuffer?: number | 'unbounded';
  /** PUB send high-water mark in messages (vLLM's `hwm`); default 100,000, 0 = none. */
  pubHighWaterMark?: number;
  /** Replies add the topic frame: ["", topic, seq, payload] (newer engines). Default false. */
  replayTopicFrame?: boolean;
  format: WireFormat;
  hash: HashKind;
  /** Data-parallel ranks; default 1. */
  dp?: number;
  /** Batches per second per rank; 0 or omitted = manual (only publish() sends). */
  rate?: number;
  seed?: number;
  /** Default "kv-events". */
  topic?: string;
  /** Events per batch, inclusive; default [1, 6]. */
  eventsPerBatch?: [number, number];
  /** 'wall' (default): ts = now; 'virtual': ts advances 20 ms per batch from a fixed epoch (deterministic bytes). */
  clock?: 'wall' | 'virtual';
  /** Seconds added to the wall clock's ts (an engine whose clock is off); default 0. */
  clockOffsetS?: number;
  /** GPU pool size in blocks; default 2048. */
  gpuBlocks?: number;
  /** CPU offload tier size in blocks; default 4096. */
  cpuBlocks?: number;
  /** Mean batches between automatic AllBlocksCleared; default 4000, 0 = never. */
  clearEvery?: number;
  /** Share of requests whose resident blocks are re-announced (kv_cache_report_mode="full"); default 0. */
  reannounce?: number;
  /** Chance that a conversation's next turn stays on its rank (with dp > 1); default 1. */
  stickiness?: number;
  faults?: SimFaults;
}
