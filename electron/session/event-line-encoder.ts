// The line of one event record in a version-2 session, the live path's hot path (the recording and
// the event ring take it: event-line.ts), so it is built by hand, without JSON.stringify of the
// event object, and the fields at the value a reader gives an absent field (null, 0) are left out:
// a quarter fewer bytes to build, gzip and parse. The reader (format.ts parseEvent) reads an absent
// field as that default, so a version-2 line reads back as the record that was written, and a
// version-1 reader reads it too (saying it is newer).

import type { EventRecord, HashKey, KvEvent } from '../../shared/events';
import { missingCase } from '../../shared/records';

/** Characters a canonical hash key never holds (shared/events.ts HashKey: decimal or hex). */
const NOT_HASH_TEXT = /[^0-9a-f-]/;

/** A number as JSON.stringify writes it: not finite reads back as null, as in version 1. */
const num = (x: number): string => (Number.isFinite(x) ? `${x}` : 'null');

const text = (s: string): string => JSON.stringify(s);

/**
 * A label's JSON text, kept for the next call: media, spec kinds and LoRA names repeat event after
 * event, and escaping them again was a tenth of a line's cost.
 */
class LastText {
  private value: string | null = null;
  private json = '';

  of(s: string): string {
    if (s !== this.value) {
      this.value = s;
      this.json = text(s);
    }
    return this.json;
  }
}

/** A hash as JSON text; a key that is not canonical text (never from the decoder) is escaped. */
const hashText = (h: HashKey): string => (NOT_HASH_TEXT.test(h) ? JSON.stringify(h) : `"${h}"`);

function hashList(hs: readonly HashKey[]): string {
  let s = '[';
  for (let i = 0; i < hs.length; i++)
    s += i === 0 ? hashText(hs[i] as HashKey) : `,${hashText(hs[i] as HashKey)}`;
  return `${s}]`;
}

/** `,"key":value` for a nullable number, or nothing when it is null. */
const optNum = (key: string, x: number | null): string => (x === null ? '' : `,"${key}":${num(x)}`);

/** `,"key":value` for a count, or nothing when it is 0. */
const optCount = (key: string, x: number): string => (x === 0 ? '' : `,"${key}":${num(x)}`);

/** `,"key":"text"` for a nullable or optional string, or nothing when it is absent. */
const optText = (key: string, x: string | null | undefined, last?: LastText): string =>
  x === null || x === undefined ? '' : `,"${key}":${last === undefined ? text(x) : last.of(x)}`;

const lastSource = new LastText();
const lastMedium = new LastText();
const lastLora = new LastText();
const lastKind = new LastText();

/** The event object's JSON, fields at their defaults left out. */
export function eventJson(e: KvEvent): string {
  switch (e.type) {
    case 'BlockStored':
      return (
        `{"type":"BlockStored","block_hashes":${hashList(e.block_hashes)}` +
        (e.parent_block_hash === null
          ? ''
          : `,"parent_block_hash":${hashText(e.parent_block_hash)}`) +
        optCount('token_count', e.token_count) +
        optCount('block_size', e.block_size) +
        optNum('lora_id', e.lora_id) +
        optText('medium', e.medium, lastMedium) +
        optText('lora_name', e.lora_name, lastLora) +
        optCount('extra_keys_count', e.extra_keys_count) +
        optNum('group_idx', e.group_idx) +
        optText('kv_cache_spec_kind', e.kv_cache_spec_kind, lastKind) +
        optNum('kv_cache_spec_sliding_window', e.kv_cache_spec_sliding_window) +
        optCount('metadata_count', e.metadata_count) +
        optCount('session_id_count', e.session_id_count) +
        optText('locality', e.locality) +
        optText('ownership', e.ownership) +
        '}'
      );
    case 'BlockRemoved':
      return (
        `{"type":"BlockRemoved","block_hashes":${hashList(e.block_hashes)}` +
        optText('medium', e.medium, lastMedium) +
        optNum('group_idx', e.group_idx) +
        optText('locality', e.locality) +
        optText('ownership', e.ownership) +
        '}'
      );
    case 'AllBlocksCleared':
      return `{"type":"AllBlocksCleared"${optText('medium', e.medium)}}`;
    default:
      return missingCase(e);
  }
}

/**
 * The events of a batch share source, seq, ts and rank: the line's head is built once a batch, not
 * once an event (escaping the source and writing the time as text are most of the head's cost).
 */
let head = { source: '', seq: -1, ts: Number.NaN, dp_rank: null as number | null, text: '' };

/** An event record's line (no newline): source, seq, ts and idx always, dp_rank unless null. */
export function encodeEventLine(r: EventRecord): string {
  const h = head;
  if (r.seq !== h.seq || r.ts !== h.ts || r.source !== h.source || r.dp_rank !== h.dp_rank) {
    const text = `{"k":"event","source":${lastSource.of(r.source)},"seq":${num(r.seq)},"ts":${num(r.ts)}${optNum('dp_rank', r.dp_rank)},"idx":`;
    head = { source: r.source, seq: r.seq, ts: r.ts, dp_rank: r.dp_rank, text };
  }
  return `${head.text}${num(r.idx)},"event":${eventJson(r.event)}}`;
}
