// Lines printed by `kvscope capture`: JSON lines a superset of the seed script's
// (`kv_events_subscriber.py --json`), with integer hashes as exact bare JSON integers.
import type { EventRecord, KvEvent, UndecodedRecord } from '../../shared/events';
import { isIntHashKey, isNegativeIntHashKey } from '../wire/hash-key';

/** A hash key as JSON: ints bare (every digit as published), byte digests as hex strings. */
export function hashJson(key: string | null): string {
  if (key === null) return 'null';
  return isIntHashKey(key) || isNegativeIntHashKey(key) ? key : JSON.stringify(key);
}

function valueJson(key: string, v: unknown): string {
  if (key === 'block_hashes') return `[${(v as string[]).map(hashJson).join(',')}]`;
  if (key === 'parent_block_hash') return hashJson(v as string | null);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return JSON.stringify(v ?? null);
}

/** One JSON line (no newline) for one event: ts, type, the event's fields, seq, dp_rank. */
export function eventJsonLine(r: EventRecord): string {
  const ev = r.event as unknown as Record<string, unknown>;
  let s = `{"ts":${numJson(r.ts)},"type":${JSON.stringify(r.event.type)}`;
  for (const k in ev) {
    if (k === 'type') continue;
    s += `,${JSON.stringify(k)}:${valueJson(k, ev[k])}`;
  }
  return `${s},"seq":${r.seq},"dp_rank":${r.dp_rank === null ? 'null' : r.dp_rank}}`;
}

/** The JSON line of a payload that could not be decoded: size and error, never the bytes. */
export function undecodedJsonLine(u: UndecodedRecord, dpRank: number | null = null): string {
  return (
    `{"ts":null,"type":"UNDECODED","bytes":${u.bytes},"error":${JSON.stringify(u.error)},` +
    `"seq":${u.seq === null ? 'null' : u.seq},"dp_rank":${dpRank === null ? 'null' : dpRank}}`
  );
}

function numJson(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

function short(key: string): string {
  return key.length > 20 ? `${key.slice(0, 16)}…` : key;
}

/** A readable one-line summary of an event (hashes in full for ints, shortened hex digests). */
export function eventTextLine(n: number, r: EventRecord): string {
  const e: KvEvent = r.event;
  const head = `[${n}] seq=${r.seq} rank=${r.dp_rank ?? '-'} ts=${r.ts} ${e.type}`;
  switch (e.type) {
    case 'BlockStored':
      return (
        `${head}: blocks=[${e.block_hashes.map(short).join(', ')}] parent=${e.parent_block_hash === null ? 'none' : short(e.parent_block_hash)}` +
        ` tokens=${e.token_count} block_size=${e.block_size}` +
        (e.medium === null ? '' : ` medium=${e.medium}`) +
        (e.lora_id === null ? '' : ` lora_id=${e.lora_id}`) +
        (e.lora_name === null ? '' : ` lora_name=${e.lora_name}`) +
        (e.group_idx === null ? '' : ` group=${e.group_idx}`)
      );
    case 'BlockRemoved':
      return (
        `${head}: blocks=[${e.block_hashes.map(short).join(', ')}]` +
        (e.medium === null ? '' : ` medium=${e.medium}`)
      );
    case 'AllBlocksCleared':
      return e.medium === null ? head : `${head}: medium=${e.medium}`;
  }
}

/** A readable line for an undecodable payload. */
export function undecodedTextLine(n: number, u: UndecodedRecord): string {
  return `[${n}] seq=${u.seq ?? '-'} UNDECODED: ${u.bytes} bytes: ${u.error}`;
}
