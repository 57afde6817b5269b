// What an event's time and numbers may be, live (the wire decoder) and in files (the session
// reader, the capture importer), and what the model defends itself against. One rule, one place.

/**
 * The largest |ts| accepted, in seconds. Epoch time today is about 1.8e9 and stays below 1e11
 * until the year 5138; a ts relative to a process start (DESIGN: "do not assume epoch") is far
 * smaller, and a negative ts is legal (a clock set back). What is beyond it is a unit error
 * (epoch milliseconds are 1.8e12, nanoseconds 1.8e18) or garbage, and seconds this large lose
 * their integer step as doubles (above 2^53 `s + 1 === s`), so no per-second loop may see them.
 */
export const MAX_ABS_TS_SEC = 1e11;

/** Why a batch time cannot be used (not finite, or beyond MAX_ABS_TS_SEC), or null when it can. */
export function eventTimeProblem(ts: number): string | null {
  if (Number.isNaN(ts)) return 'batch ts is NaN';
  if (!Number.isFinite(ts)) return `batch ts is ${ts > 0 ? '+' : '-'}Infinity`;
  if (Math.abs(ts) > MAX_ABS_TS_SEC) {
    return `batch ts ${String(ts)} is out of range (|ts| must be at most 1e11 seconds: is the publisher sending milliseconds or nanoseconds?)`;
  }
  return null;
}

/** Whether ts is a usable event time (finite, |ts| <= MAX_ABS_TS_SEC). */
export function isEventTime(ts: number): boolean {
  return Number.isFinite(ts) && Math.abs(ts) <= MAX_ABS_TS_SEC;
}

// Field bounds of a file's events, the same as the wire decoder's plausibility bounds
// (electron/wire/decode-event.ts): a value outside them is a bad line, not a value to show.

/** block_size: at most 2^20 tokens per block. */
export const MAX_BLOCK_SIZE = 1 << 20;
/** group_idx: at most 2^16 KV cache groups. */
export const MAX_GROUP_IDX = 1 << 16;
/** kv_cache_spec_sliding_window: at most 2^26 tokens. */
export const MAX_WINDOW = 1 << 26;
/** dp_rank: at most 2^16 data-parallel ranks. */
export const MAX_DP_RANK = 1 << 16;
/** lora_id is an int32. */
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;
/**
 * token_count and the presence counts (extra keys, metadata, session ids, an event's index): a
 * payload is at most 16 MiB (DEFAULT_MAX_PAYLOAD_BYTES), so no count of its items can pass 2^24;
 * 2^32 leaves room for a raised payload limit.
 */
export const MAX_COUNT = 2 ** 32;
/** A raw-bytes block hash: at most 128 bytes (vLLM's digests are 32), so 256 hex characters. */
export const MAX_HASH_HEX_CHARS = 256;

/**
 * locality and ownership (vLLM, mid-2026) are labels, an enum and a tier id: a short word is
 * kept, anything else (a map, a long or spaced string) is not (drift, never a value to show).
 */
export const PLACEMENT_LABEL = /^[A-Za-z0-9_.:@/-]{1,64}$/;

/** Whether v is a locality / ownership label worth keeping. */
export function isPlacementLabel(v: unknown): v is string {
  return typeof v === 'string' && PLACEMENT_LABEL.test(v);
}
