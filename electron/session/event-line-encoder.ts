// The line of one event record in a version-2 session, the live path's hot path (the recording and
// the event ring take it: event-line.ts), so it is written by hand as UTF-8 bytes straight into a
// batch's buffer: no JS string per line, no JSON.stringify of the event object, no UTF-8 copy of a
// string afterwards (string and copy took 1.75 µs CPU per fixture message, the bytes take 1.0, of
// the recording's 5-6 µs; the rest is mostly deflate). The fields at the value a reader gives an
// absent field (null, 0) are left out: a quarter fewer bytes to build, gzip and parse. The reader
// (format.ts parseEvent) reads an absent field as that default, so a version-2 line reads back as
// the record that was written, and a version-1 reader reads it too (saying it is newer).
// test/fixtures/session/event-lines.pinned.jsonl pins the bytes.

import type {
  BlockRemovedEvent,
  BlockStoredEvent,
  EventRecord,
  HashKey,
  KvEvent,
} from '../../shared/events';
import { missingCase } from '../../shared/records';
import { DecimalHashes, type HashList } from '../../shared/hash-list';
import {
  viewOf,
  writeDecimalPartsAt,
  writeMicrosDecimalAt,
  writeUintDecimal,
} from '../wire/decimal-bytes';

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');

// The constant parts of a line, as bytes.
const STORED_HEAD = ascii('{"type":"BlockStored","block_hashes":[');
const REMOVED_HEAD = ascii('{"type":"BlockRemoved","block_hashes":[');
const CLEARED_HEAD = ascii('{"type":"AllBlocksCleared"');
const PARENT = ascii(',"parent_block_hash":');
const TOKEN_COUNT = ascii(',"token_count":');
const BLOCK_SIZE = ascii(',"block_size":');
const LORA_ID = ascii(',"lora_id":');
const MEDIUM = ascii(',"medium":');
const LORA_NAME = ascii(',"lora_name":');
const EXTRA_KEYS = ascii(',"extra_keys_count":');
const GROUP_IDX = ascii(',"group_idx":');
const SPEC_KIND = ascii(',"kv_cache_spec_kind":');
const SPEC_WINDOW = ascii(',"kv_cache_spec_sliding_window":');
const METADATA = ascii(',"metadata_count":');
const SESSION_ID = ascii(',"session_id_count":');
const LOCALITY = ascii(',"locality":');
const OWNERSHIP = ascii(',"ownership":');
const EVENT = ascii(',"event":');
const K_SOURCE = ascii('{"k":"event","source":');
const K_SEQ = ascii(',"seq":');
const K_TS = ascii(',"ts":');
const K_DP_RANK = ascii(',"dp_rank":');
const K_IDX = ascii(',"idx":');

/** Digits of the largest u64. */
const MAX_U64_DIGITS = 20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE_LIST = 0x5d;
const CLOSE = 0x7d;
const NEWLINE = 0x0a;

/** A number as JSON.stringify writes it: not finite reads back as null, as in version 1. */
const num = (x: number): string => (Number.isFinite(x) ? `${x}` : 'null');

/** The JSON text of a string as UTF-8 bytes. */
const jsonText = (s: string): Uint8Array => Buffer.from(JSON.stringify(s), 'utf8');

/**
 * A label's JSON bytes, kept for the next call: media, spec kinds and LoRA names repeat event
 * after event, and escaping them again was a tenth of a line's cost.
 */
class LastText {
  private value: string | null = null;
  private json: Uint8Array = jsonText('');

  of(s: string): Uint8Array {
    if (s !== this.value) {
      this.value = s;
      this.json = jsonText(s);
    }
    return this.json;
  }
}

/** Most bytes a value's text can take besides its strings: a key and a number, with room to spare. */
const FIELD_BYTES = 64;
/** Most bytes per UTF-16 unit of a string's JSON text (a control char's \u00XX escape). */
const PER_UNIT = 6;

/**
 * The text of an event's last fields, kept while they repeat: a BlockStored's block size, medium,
 * group and spec kind (after its token count) and a BlockRemoved's medium and group are the same
 * event after event, so their bytes are copied in one piece instead of written field by field.
 */
class Tail<E> {
  private e: E | null = null;
  /** The kept tail's bytes: a view of `store`, which each keep() writes over. */
  bytes: Uint8Array = new Uint8Array(0);
  /**
   * Reused from tail to tail: a new copy per change (a stored tail changes every few events)
   * was a buffer outside V8's heap past 64 bytes, freed only by a GC's sweep.
   */
  private store = new Uint8Array(256);

  constructor(private readonly same: (a: E, b: E) => boolean) {}

  /** Whether `e`'s tail fields are those of the event kept. */
  matches(e: E): boolean {
    return this.e !== null && this.same(e, this.e);
  }

  /** Keeps `e` and its tail's bytes, src[start, end). */
  keep(e: E, src: Uint8Array, start: number, end: number): void {
    this.e = e;
    const n = end - start;
    // A copy (a view of src would be of bytes the next batch writes over).
    if (n > this.store.length) this.store = new Uint8Array(2 * n);
    const store = this.store;
    for (let i = 0; i < n; i++) store[i] = src[start + i] as number;
    this.bytes = store.subarray(0, n);
  }
}

const samePlacement = (a: BlockStoredEvent | BlockRemovedEvent, b: typeof a): boolean =>
  a.medium === b.medium &&
  a.group_idx === b.group_idx &&
  a.locality === b.locality &&
  a.ownership === b.ownership;

const sameStoredTail = (a: BlockStoredEvent, b: BlockStoredEvent): boolean =>
  a.block_size === b.block_size &&
  a.lora_id === b.lora_id &&
  a.lora_name === b.lora_name &&
  a.extra_keys_count === b.extra_keys_count &&
  a.kv_cache_spec_kind === b.kv_cache_spec_kind &&
  a.kv_cache_spec_sliding_window === b.kv_cache_spec_sliding_window &&
  a.metadata_count === b.metadata_count &&
  a.session_id_count === b.session_id_count &&
  samePlacement(a, b);

/**
 * The event lines of one batch, back to back in one buffer, each ending with a newline: the
 * recording copies them into its gzip segment and the event ring into its arena (consumers copy
 * them during the call they are handed in: the buffer is written again for the next batch).
 */
export class EventLines {
  /** The bytes: line i is buf[lineStart(i), lineEnd(i)), its newline at lineEnd(i). */
  buf: Buffer = Buffer.allocUnsafe(64 * 1024);
  /** Bytes used. */
  end = 0;
  /** Lines written. */
  count = 0;
  /** ends[i]: the offset after line i's newline. */
  private ends = new Uint32Array(64);
  private readonly lastMedium = new LastText();
  private readonly lastLora = new LastText();
  private readonly lastKind = new LastText();
  private readonly lastPlacement = new LastText();
  private readonly lastStored = new Tail<BlockStoredEvent>(sameStoredTail);
  private readonly lastRemoved = new Tail<BlockRemovedEvent>(samePlacement);
  /**
   * The events of a batch share source, seq, ts and rank: the line's head (up to `"idx":`) is
   * written once a batch and copied for its other events (escaping the source and writing the
   * time as text are most of the head's cost).
   */
  private readonly head = { source: '', seq: -1, ts: Number.NaN, dpRank: null as number | null };
  /** Where the head of this batch's first line is in buf, and its length (-1: none yet). */
  private headAt = 0;
  private headLen = -1;
  private readonly lastSource = new LastText();

  /** Empties the buffer for the next batch. */
  clear(): void {
    this.end = 0;
    this.count = 0;
    this.headLen = -1;
  }

  /** Where line i starts. */
  lineStart(i: number): number {
    return i === 0 ? 0 : (this.ends[i - 1] as number);
  }

  /** Where line i ends (its newline; the line's bytes are before it). */
  lineEnd(i: number): number {
    return (this.ends[i] as number) - 1;
  }

  /** Appends the record's line (source, seq, ts and idx always, dp_rank unless null) and a newline. */
  add(r: EventRecord): void {
    const sourceBytes = PER_UNIT * r.source.length;
    this.ensure(sourceBytes + 4 * FIELD_BYTES + this.eventBytesAtMost(r.event));
    this.writeHead(r);
    this.number(r.idx);
    this.bytes(EVENT);
    this.event(r.event);
    this.buf[this.end++] = CLOSE;
    this.buf[this.end++] = NEWLINE;
    if (this.count === this.ends.length) {
      const more = new Uint32Array(this.ends.length * 2);
      more.set(this.ends);
      this.ends = more;
    }
    this.ends[this.count++] = this.end;
  }

  /** The head up to `"idx":`: a copy of the batch's first one, or written when the batch changes. */
  private writeHead(r: EventRecord): void {
    const h = this.head;
    const buf = this.buf;
    if (
      this.headLen >= 0 &&
      r.seq === h.seq &&
      r.ts === h.ts &&
      r.source === h.source &&
      r.dp_rank === h.dpRank
    ) {
      buf.copyWithin(this.end, this.headAt, this.headAt + this.headLen);
      this.end += this.headLen;
      return;
    }
    // Kept in place: an object per batch was garbage to collect.
    h.source = r.source;
    h.seq = r.seq;
    h.ts = r.ts;
    h.dpRank = r.dp_rank;
    this.headAt = this.end;
    this.bytes(K_SOURCE);
    this.bytes(this.lastSource.of(r.source));
    this.bytes(K_SEQ);
    this.number(r.seq);
    this.bytes(K_TS);
    this.number(r.ts);
    if (r.dp_rank !== null) {
      this.bytes(K_DP_RANK);
      this.number(r.dp_rank);
    }
    this.bytes(K_IDX);
    this.headLen = this.end - this.headAt;
  }

  /** Most bytes the event's JSON can take. */
  private eventBytesAtMost(e: KvEvent): number {
    let n = 24 * FIELD_BYTES + PER_UNIT * (e.medium?.length ?? 0);
    if (e.type === 'AllBlocksCleared') return n;
    const hashes = e.block_hashes;
    if (hashes instanceof DecimalHashes) n += hashes.length * (MAX_U64_DIGITS + 3);
    else for (const h of hashes) n += PER_UNIT * h.length + 3;
    n += PER_UNIT * ((e.locality?.length ?? 0) + (e.ownership?.length ?? 0));
    if (e.type === 'BlockRemoved') return n;
    n += PER_UNIT * (e.parent_block_hash?.length ?? 0);
    return n + PER_UNIT * ((e.lora_name?.length ?? 0) + (e.kv_cache_spec_kind?.length ?? 0));
  }

  /** Room for `n` more bytes (the batch's lines so far move to a larger buffer). */
  private ensure(n: number): void {
    if (this.end + n <= this.buf.length) return;
    const more = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.end + n));
    this.buf.copy(more, 0, 0, this.end);
    this.buf = more;
  }

  private bytes(b: Uint8Array): void {
    const buf = this.buf;
    const n = b.length;
    // Short parts by a loop, longer ones by set(): a call into set() costs about what a loop over
    // two dozen bytes does.
    if (n > 24) buf.set(b, this.end);
    else for (let i = 0, p = this.end; i < n; i++) buf[p++] = b[i] as number;
    this.end += n;
  }

  /**
   * A number as JSON.stringify writes it: safe non-negative ints and epoch seconds to the
   * microsecond (a batch's ts) by hand, the rest as text. String(ts) was a sixth of a line's cost.
   */
  private number(x: number): void {
    if (Number.isSafeInteger(x) && x >= 0) {
      this.end = writeUintDecimal(this.buf, this.end, x);
      return;
    }
    const end = writeMicrosDecimalAt(viewOf(this.buf), this.end, x);
    if (end >= 0) {
      this.end = end;
      return;
    }
    // A number's text is ASCII (digits, sign, point, exponent, or null).
    const t = num(x);
    const buf = this.buf;
    let p = this.end;
    for (let i = 0; i < t.length; i++) buf[p++] = t.charCodeAt(i);
    this.end = p;
  }

  /** A hash as JSON text; a key that is not canonical text (never from the decoder) is escaped. */
  private hash(h: HashKey): void {
    const buf = this.buf;
    let p = this.end;
    buf[p++] = QUOTE;
    for (let i = 0; i < h.length; i++) {
      const c = h.charCodeAt(i);
      // Canonical text (shared/events.ts HashKey): decimal digits, a minus sign, lowercase hex.
      if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || c === 0x2d) buf[p++] = c;
      else return this.bytes(jsonText(h));
    }
    buf[p++] = QUOTE;
    this.end = p;
  }

  private hashList(hs: HashList): void {
    if (hs instanceof DecimalHashes) this.decimalList(hs);
    else
      for (let i = 0; i < hs.length; i++) {
        if (i > 0) this.buf[this.end++] = COMMA;
        this.hash(hs[i] as HashKey);
      }
    this.buf[this.end++] = CLOSE_LIST;
  }

  /** u64 hashes' digits written from their parts: the same text as their keys', none made. */
  private decimalList(hs: DecimalHashes): void {
    const buf = this.buf;
    const view = viewOf(buf);
    let p = this.end;
    for (let i = 0; i < hs.length; i++) {
      if (i > 0) buf[p++] = COMMA;
      buf[p++] = QUOTE;
      p = writeDecimalPartsAt(view, p, hs.hi(i), hs.lo(i));
      buf[p++] = QUOTE;
    }
    this.end = p;
  }

  /** `,"key":value` for a nullable number, or nothing when it is null. */
  private optNum(key: Uint8Array, x: number | null): void {
    if (x === null) return;
    this.bytes(key);
    this.number(x);
  }

  /** `,"key":value` for a count, or nothing when it is 0. */
  private optCount(key: Uint8Array, x: number): void {
    if (x === 0) return;
    this.bytes(key);
    this.number(x);
  }

  /** `,"key":"text"` for a nullable or optional string, or nothing when it is absent. */
  private optText(key: Uint8Array, x: string | null | undefined, last: LastText): void {
    if (x === null || x === undefined) return;
    this.bytes(key);
    this.bytes(last.of(x));
  }

  /** A BlockStored's fields after its hashes: the token count, then the last tail while it repeats. */
  private storedTail(e: BlockStoredEvent): void {
    // The token count follows the number of blocks: it changes too often to be kept.
    this.optCount(TOKEN_COUNT, e.token_count);
    const tail = this.lastStored;
    if (tail.matches(e)) return this.bytes(tail.bytes);
    const at = this.end;
    this.optCount(BLOCK_SIZE, e.block_size);
    this.optNum(LORA_ID, e.lora_id);
    this.optText(MEDIUM, e.medium, this.lastMedium);
    this.optText(LORA_NAME, e.lora_name, this.lastLora);
    this.optCount(EXTRA_KEYS, e.extra_keys_count);
    this.optNum(GROUP_IDX, e.group_idx);
    this.optText(SPEC_KIND, e.kv_cache_spec_kind, this.lastKind);
    this.optNum(SPEC_WINDOW, e.kv_cache_spec_sliding_window);
    this.optCount(METADATA, e.metadata_count);
    this.optCount(SESSION_ID, e.session_id_count);
    this.optText(LOCALITY, e.locality, this.lastPlacement);
    this.optText(OWNERSHIP, e.ownership, this.lastPlacement);
    tail.keep(e, this.buf, at, this.end);
  }

  /** A BlockRemoved's fields after its hashes: the last one's bytes while they repeat. */
  private removedTail(e: BlockRemovedEvent): void {
    const tail = this.lastRemoved;
    if (tail.matches(e)) return this.bytes(tail.bytes);
    const at = this.end;
    this.optText(MEDIUM, e.medium, this.lastMedium);
    this.optNum(GROUP_IDX, e.group_idx);
    this.optText(LOCALITY, e.locality, this.lastPlacement);
    this.optText(OWNERSHIP, e.ownership, this.lastPlacement);
    tail.keep(e, this.buf, at, this.end);
  }

  /** The event object's JSON, fields at their defaults left out. */
  private event(e: KvEvent): void {
    switch (e.type) {
      case 'BlockStored':
        this.bytes(STORED_HEAD);
        this.hashList(e.block_hashes);
        if (e.parent_block_hash !== null) {
          this.bytes(PARENT);
          this.hash(e.parent_block_hash);
        }
        this.storedTail(e);
        break;
      case 'BlockRemoved':
        this.bytes(REMOVED_HEAD);
        this.hashList(e.block_hashes);
        this.removedTail(e);
        break;
      case 'AllBlocksCleared':
        this.bytes(CLEARED_HEAD);
        this.optText(MEDIUM, e.medium, this.lastMedium);
        break;
      default:
        missingCase(e);
    }
    this.buf[this.end++] = CLOSE;
  }
}

const one = new EventLines();

/** An event record's line as a string (no newline): the same bytes EventLines writes. */
export function encodeEventLine(r: EventRecord): string {
  one.clear();
  one.add(r);
  return one.buf.toString('utf8', 0, one.lineEnd(0));
}
