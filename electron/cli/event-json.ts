// The JSON line of one event, as `kvscope capture --json` prints it: ts, type, the event's fields
// in the order the decoder builds them (shared/events.ts), seq and dp_rank; int hashes bare,
// byte digests as hex strings, non-finite numbers as null.
//
// This is capture's hot path, so it writes bytes straight into the output buffer, and the parts
// that repeat are kept as bytes: the head of a batch's lines (its ts), their tail (seq, dp_rank)
// and a BlockStored's fields after token_count (block size, LoRA, medium... the same for most
// events of a stream). Only hashes, the parent and token_count are written anew per event.
import type {
  AllBlocksClearedEvent,
  BlockRemovedEvent,
  BlockStoredEvent,
  EventRecord,
  HashKey,
} from '../../shared/events';
import { hashTexts } from '../../shared/hash-list';
import { missingCase } from '../../shared/records';
import { isIntHashKey, isNegativeIntHashKey } from '../wire/hash-key';
import type { LineOutput } from './line-output';

// Every field of every event type is written below: adding one to shared/events.ts without
// writing it here fails to compile.
type Written<T, K extends keyof T> = Exclude<keyof T, K> extends never ? true : never;
const storedWritten: Written<
  BlockStoredEvent,
  | 'type'
  | 'block_hashes'
  | 'parent_block_hash'
  | 'token_count'
  | 'block_size'
  | 'lora_id'
  | 'medium'
  | 'lora_name'
  | 'extra_keys_count'
  | 'group_idx'
  | 'kv_cache_spec_kind'
  | 'kv_cache_spec_sliding_window'
  | 'metadata_count'
  | 'session_id_count'
  | 'locality'
  | 'ownership'
> = true;
const removedWritten: Written<
  BlockRemovedEvent,
  'type' | 'block_hashes' | 'medium' | 'group_idx' | 'locality' | 'ownership'
> = true;
const clearedWritten: Written<AllBlocksClearedEvent, 'type' | 'medium'> = true;
void [storedWritten, removedWritten, clearedWritten];

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** The bytes that open a BlockStored's / BlockRemoved's fields, and join its parts. */
export const K_STORED = ascii('"BlockStored","block_hashes":[');
export const K_REMOVED = ascii('"BlockRemoved","block_hashes":[');
export const K_CLEARED = ascii('"AllBlocksCleared","medium":');
export const K_PARENT = ascii('],"parent_block_hash":');
export const K_TOKEN_COUNT = ascii(',"token_count":');
export const NULL = ascii('null');
const COMMA = 0x2c;

/** A number as the lines have always shown it: JSON, with null for NaN and infinities. */
const num = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');
const numOrNull = (v: number | null): string => (v === null ? 'null' : num(v));
const str = (v: string | null): string => (v === null ? 'null' : JSON.stringify(v));

/** locality / ownership, under their wire names, only when the event carried them. */
const placement = (e: { locality: string | undefined; ownership: string | undefined }): string =>
  (e.locality === undefined ? '' : `,"locality":${JSON.stringify(e.locality)}`) +
  (e.ownership === undefined ? '' : `,"ownership":${JSON.stringify(e.ownership)}`);

/** A BlockStored's fields after token_count, and their bytes. */
export interface StoredRest {
  blockSize: number;
  loraId: number | null;
  medium: string | null;
  loraName: string | null;
  extraKeys: number;
  groupIdx: number | null;
  specKind: string | null;
  specWindow: number | null;
  metadata: number;
  sessionId: number;
  locality: string | undefined;
  ownership: string | undefined;
  bytes: Uint8Array;
}

/** A BlockRemoved's fields after its hashes, and their bytes. */
export interface RemovedRest {
  medium: string | null;
  groupIdx: number | null;
  locality: string | undefined;
  ownership: string | undefined;
  bytes: Uint8Array;
}

/** How many distinct StoredRest are kept (a stream alternates among a few: GPU, CPU, LoRAs). */
const MAX_RESTS = 32;

/** Writes event JSON lines into a LineOutput; one per capture (it keeps the repeating parts). */
export class EventJsonWriter {
  private ts: number | undefined = undefined;
  private seq: number | undefined = undefined;
  private rank: number | null = null;
  // Per batch: strings, copied per line (cheaper than making bytes of them once per batch).
  private head = '';
  private tail = '';
  private readonly rests: StoredRest[] = [];
  private nextRest = 0;
  private readonly removedRests: RemovedRest[] = [];
  private nextRemovedRest = 0;

  constructor(private readonly o: LineOutput) {}

  /** The BlockStored tails kept so far (capture-batch-json.ts prints from them too). */
  get storedRestsKept(): readonly StoredRest[] {
    return this.rests;
  }

  /** The BlockRemoved tails kept so far. */
  get removedRestsKept(): readonly RemovedRest[] {
    return this.removedRests;
  }

  /** Writes one event's line, newline included. */
  write(r: EventRecord): void {
    // Object.is: a NaN ts is the same head as the last NaN one.
    if (!Object.is(r.ts, this.ts)) this.newTs(r.ts);
    if (r.seq !== this.seq || r.dp_rank !== this.rank) this.newTail(r.seq, r.dp_rank);
    const o = this.o;
    const e = r.event;
    switch (e.type) {
      case 'BlockStored':
        o.ascii(this.head);
        o.bytes(K_STORED);
        this.hashes(hashTexts(e.block_hashes));
        o.bytes(K_PARENT);
        if (e.parent_block_hash === null) o.bytes(NULL);
        else this.hash(e.parent_block_hash);
        o.bytes(K_TOKEN_COUNT);
        o.number(e.token_count);
        o.bytes(this.storedRest(e));
        break;
      case 'BlockRemoved':
        o.ascii(this.head);
        o.bytes(K_REMOVED);
        this.hashes(hashTexts(e.block_hashes));
        o.bytes(this.removedRest(e));
        break;
      case 'AllBlocksCleared':
        o.ascii(this.head);
        o.bytes(K_CLEARED);
        o.text(str(e.medium));
        break;
      default:
        missingCase(e);
    }
    o.ascii(this.tail);
  }

  private newTs(ts: number): void {
    this.ts = ts;
    this.head = `{"ts":${num(ts)},"type":`;
  }

  private newTail(seq: number, rank: number | null): void {
    this.seq = seq;
    this.rank = rank;
    this.tail = `,"seq":${seq},"dp_rank":${rank === null ? 'null' : rank}}\n`;
  }

  /** A hash key as JSON: ints bare (every digit as published), byte digests as hex strings. */
  private hash(key: HashKey): void {
    // The '-' test first keeps the negative-int check (a regex and a BigInt) off the common path.
    if (isIntHashKey(key) || (key.charCodeAt(0) === 0x2d && isNegativeIntHashKey(key)))
      this.o.ascii(key);
    else this.o.jsonString(key);
  }

  private hashes(keys: readonly HashKey[]): void {
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.o.byte(COMMA);
      this.hash(keys[i] as HashKey);
    }
  }

  /** The bytes of a BlockRemoved's fields after its hashes: kept for the few that repeat. */
  private removedRest(e: BlockRemovedEvent): Uint8Array {
    const rests = this.removedRests;
    for (let i = 0; i < rests.length; i++) {
      const r = rests[i] as RemovedRest;
      if (
        r.medium === e.medium &&
        r.groupIdx === e.group_idx &&
        r.locality === e.locality &&
        r.ownership === e.ownership
      )
        return r.bytes;
    }
    return this.keepRemovedRest({
      medium: e.medium,
      groupIdx: e.group_idx,
      locality: e.locality,
      ownership: e.ownership,
    });
  }

  /** Makes the bytes of a BlockRemoved tail and keeps them (replacing the oldest kept). */
  keepRemovedRest(t: Omit<RemovedRest, 'bytes'>): Uint8Array {
    // Every field named in one literal, in one order: every kept rest has one shape, so the
    // fast path's comparisons of them (storedRest / removedRest in capture-batch-json.ts) stay
    // monomorphic. A spread of objects made at two sites gave the rests several shapes, and
    // those loads went megamorphic (a stub-cache probe per field, per line).
    const rest: RemovedRest = {
      medium: t.medium,
      groupIdx: t.groupIdx,
      locality: t.locality,
      ownership: t.ownership,
      bytes: utf8(
        `],"medium":${str(t.medium)},"group_idx":${numOrNull(t.groupIdx)}${placement(t)}`,
      ),
    };
    this.removedRests[this.nextRemovedRest] = rest;
    this.nextRemovedRest = (this.nextRemovedRest + 1) % MAX_RESTS;
    return rest.bytes;
  }

  /** The bytes of a BlockStored's fields after token_count: kept for the few that repeat. */
  private storedRest(e: BlockStoredEvent): Uint8Array {
    const rests = this.rests;
    for (let i = 0; i < rests.length; i++) {
      const r = rests[i] as StoredRest;
      if (
        r.blockSize === e.block_size &&
        r.loraId === e.lora_id &&
        r.medium === e.medium &&
        r.loraName === e.lora_name &&
        r.extraKeys === e.extra_keys_count &&
        r.groupIdx === e.group_idx &&
        r.specKind === e.kv_cache_spec_kind &&
        r.specWindow === e.kv_cache_spec_sliding_window &&
        r.metadata === e.metadata_count &&
        r.sessionId === e.session_id_count &&
        r.locality === e.locality &&
        r.ownership === e.ownership
      )
        return r.bytes;
    }
    return this.keepStoredRest({
      blockSize: e.block_size,
      loraId: e.lora_id,
      medium: e.medium,
      loraName: e.lora_name,
      extraKeys: e.extra_keys_count,
      groupIdx: e.group_idx,
      specKind: e.kv_cache_spec_kind,
      specWindow: e.kv_cache_spec_sliding_window,
      metadata: e.metadata_count,
      sessionId: e.session_id_count,
      locality: e.locality,
      ownership: e.ownership,
    });
  }

  /** Makes the bytes of a BlockStored tail and keeps them (replacing the oldest kept). */
  keepStoredRest(t: Omit<StoredRest, 'bytes'>): Uint8Array {
    // One literal, every field in one order (see keepRemovedRest).
    const rest: StoredRest = {
      blockSize: t.blockSize,
      loraId: t.loraId,
      medium: t.medium,
      loraName: t.loraName,
      extraKeys: t.extraKeys,
      groupIdx: t.groupIdx,
      specKind: t.specKind,
      specWindow: t.specWindow,
      metadata: t.metadata,
      sessionId: t.sessionId,
      locality: t.locality,
      ownership: t.ownership,
      bytes: utf8(
        `,"block_size":${num(t.blockSize)},"lora_id":${numOrNull(t.loraId)}` +
          `,"medium":${str(t.medium)},"lora_name":${str(t.loraName)}` +
          `,"extra_keys_count":${num(t.extraKeys)},"group_idx":${numOrNull(t.groupIdx)}` +
          `,"kv_cache_spec_kind":${str(t.specKind)}` +
          `,"kv_cache_spec_sliding_window":${numOrNull(t.specWindow)}` +
          `,"metadata_count":${num(t.metadata)},"session_id_count":${num(t.sessionId)}` +
          placement(t),
      ),
    };
    // NaN never equals itself: such a rest is written but not kept (it would never match).
    if (Object.values(rest).every((v) => v === v)) {
      this.rests[this.nextRest] = rest;
      this.nextRest = (this.nextRest + 1) % MAX_RESTS;
    }
    return rest.bytes;
  }
}
