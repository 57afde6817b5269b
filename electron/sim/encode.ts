// Encode an EventBatch exactly as vLLM's msgspec structs do: a positional batch
// [ts, events, dp_rank]; events as legacy positional arrays with trailing defaults omitted
// (format 'array') or as tagged maps with defaulted fields omitted (format 'map').
import { MsgpackWriter } from './msgpack-writer';
import type { RawBlockStored, RawEvent, WireFormat } from './types';

// One writer reused across batches (encoding is synchronous): one allocation per payload.
const shared = new MsgpackWriter(64 * 1024);

type Field = [name: string, value: unknown, hasDefault: boolean];

/** Encode one batch's payload; dpRank null omits the trailing rank. */
export function encodeBatch(
  ts: number,
  events: readonly RawEvent[],
  dpRank: number | null,
  format: WireFormat,
): Uint8Array {
  const w = shared;
  w.reset();
  w.array(dpRank === null ? 2 : 3);
  w.float64(ts);
  w.array(events.length);
  for (const e of events) writeEvent(w, e, format);
  if (dpRank !== null) w.int(dpRank);
  return w.bytes();
}

/** Garbage bytes that no msgpack decoder accepts as an EventBatch (0xc1 is never used). */
export function garbagePayload(n: number): Uint8Array {
  const out = new Uint8Array(16 + (n % 48));
  out[0] = 0xc1;
  for (let i = 1; i < out.length; i++) out[i] = (n * 131 + i * 17) & 0xff;
  return out;
}

function fields(e: RawEvent): Field[] {
  switch (e.type) {
    case 'BlockStored':
      return storedFields(e);
    case 'BlockRemoved':
      return [
        ['block_hashes', e.block_hashes, false],
        ['medium', e.medium, false],
        ['group_idx', e.group_idx, true],
      ];
    case 'AllBlocksCleared':
      return [];
  }
}

function storedFields(e: RawBlockStored): Field[] {
  return [
    ['block_hashes', e.block_hashes, false],
    ['parent_block_hash', e.parent_block_hash, false],
    ['token_ids', e.token_ids, false],
    ['block_size', e.block_size, false],
    ['lora_id', e.lora_id, false],
    ['medium', e.medium, false],
    // Older engines had no lora_name: in the legacy form it trails and is omitted when null.
    ['lora_name', e.lora_name, true],
    ['extra_keys', e.extra_keys, true],
    ['group_idx', e.group_idx, true],
    ['kv_cache_spec_kind', e.kv_cache_spec_kind, true],
    ['kv_cache_spec_sliding_window', e.kv_cache_spec_sliding_window, true],
  ];
}

function writeEvent(w: MsgpackWriter, e: RawEvent, format: WireFormat): void {
  const all = fields(e);
  if (format === 'map') {
    // msgspec omit_defaults: a defaulted field equal to its default (None) is left out.
    const kept = all.filter(
      ([name, v, hasDefault]) => !hasDefault || v !== null || name === 'lora_name',
    );
    w.map(kept.length + 1);
    w.str('type');
    w.str(e.type);
    for (const [name, v] of kept) {
      w.str(name);
      writeValue(w, v);
    }
    return;
  }
  let n = all.length;
  while (n > 0 && all[n - 1]![2] && all[n - 1]![1] === null) n--;
  w.array(n + 1);
  w.str(e.type);
  for (let i = 0; i < n; i++) writeValue(w, all[i]![1]);
}

function writeValue(w: MsgpackWriter, v: unknown): void {
  if (v === null || v === undefined) w.nil();
  else if (typeof v === 'bigint') w.int(v);
  else if (typeof v === 'number') {
    if (Number.isInteger(v)) w.int(v);
    else w.float64(v);
  } else if (typeof v === 'string') w.str(v);
  else if (typeof v === 'boolean') w.bool(v);
  else if (v instanceof Uint8Array) w.bin(v);
  else if (Array.isArray(v)) {
    w.array(v.length);
    for (const x of v) writeValue(w, x);
  } else throw new TypeError(`cannot encode ${typeof v}`);
}
