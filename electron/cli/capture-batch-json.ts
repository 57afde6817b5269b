// `kvscope capture --json`'s fast path: a batch's JSON lines written straight from its msgpack
// bytes, with no event objects, hash strings or BigInts made on the way (building and then
// printing those was most of capture's CPU: issue 9). It takes the shapes engines publish (a
// positional batch; positional or map events; int or bytes hashes) and hands anything else back,
// with nothing printed, to the exact path (decodeBatch + EventJsonWriter), which also says what a
// bad event or payload deserves. Fields are read by the decoder's rules (decode-event.ts: the
// same bounds, the same last-wins for a repeated key) and the repeating tails are made and kept by
// the EventJsonWriter, so both paths print the same bytes (test/cli/capture-output pins them).
import {
  eventTimeProblem,
  INT32_MAX,
  INT32_MIN,
  MAX_BLOCK_SIZE,
  MAX_DP_RANK,
  MAX_GROUP_IDX,
  MAX_WINDOW,
} from '../../shared/event-bounds';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../wire/decode-batch';
import { countExtraKeys, countPresence, MAX_LABEL, readTypeTag } from '../wire/decode-event';
import { writeMicrosDecimalAt, writeU64DecimalAt, writeUintDecimalAt } from '../wire/decimal-bytes';
import { isIntHashKey } from '../wire/hash-key';
import {
  CLEARED_POSITIONS,
  F_BLOCK_HASHES,
  F_BLOCK_SIZE,
  F_CACHE_SALT,
  F_EXTRA_KEYS,
  F_GROUP_IDX,
  F_LOCALITY,
  F_LORA_ID,
  F_LORA_NAME,
  F_MEDIUM,
  F_METADATA,
  F_OWNERSHIP,
  F_PARENT,
  F_SESSION_ID,
  F_SPEC_KIND,
  F_SPEC_WINDOW,
  F_TOKEN_IDS,
  F_TYPE,
  fieldIdAt,
  REMOVED_POSITIONS,
  STORED_POSITIONS,
  T_CLEARED,
  T_REMOVED,
  T_STORED,
} from '../wire/event-fields';
import { MsgpackError, MsgpackReader, SchemaError } from '../wire/msgpack-reader';
import {
  K_CLEARED,
  K_PARENT,
  K_REMOVED,
  K_STORED,
  K_TOKEN_COUNT,
  NULL,
  type EventJsonWriter,
  type RemovedRest,
  type StoredRest,
} from './event-json';
import type { LineOutput } from './line-output';

/** Thrown (and caught in write) where the exact path must take the batch. */
class Unhandled extends Error {}
const UNHANDLED = new Unhandled('left to the exact path');

/** A growable run of bytes, reused from batch to batch. */
class ByteRun {
  buf: Buffer = Buffer.allocUnsafe(4096);
  n = 0;
  /** The buffer `dv` views (numbers are written through a DataView: see decimal-bytes.ts). */
  private viewed: Buffer | null = null;
  private dv: DataView = new DataView(new ArrayBuffer(0));

  /** A DataView of the buffer, made again only when the buffer changed. */
  view(): DataView {
    const buf = this.buf;
    if (buf !== this.viewed) {
      this.viewed = buf;
      this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    return this.dv;
  }

  /** The buffer, with room for k more bytes at n. */
  room(k: number): Buffer {
    if (this.n + k > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.n + k));
      this.buf.copy(grown, 0, 0, this.n);
      this.buf = grown;
    }
    return this.buf;
  }

  put(src: Uint8Array, start: number, end: number): void {
    const buf = this.room(end - start);
    let n = this.n;
    // A loop beats TypedArray.set (a call into C++) for the short runs that most parts are.
    if (end - start > 64) {
      buf.set(src.subarray(start, end), n);
      this.n = n + end - start;
      return;
    }
    for (let i = start; i < end; i++) buf[n++] = src[i] as number;
    this.n = n;
  }

  /** Appends a whole constant. */
  all(src: Uint8Array): void {
    const len = src.length;
    const buf = this.room(len);
    // A whole array goes in with one set() (a C++ call, but no view made): past a few bytes
    // that beats the byte loop (20-60 byte constants: 3-4x faster).
    if (len > 8) buf.set(src, this.n);
    else for (let i = 0; i < len; i++) buf[this.n + i] = src[i] as number;
    this.n += len;
  }

  /** The last `written()` view and the buffer it views. */
  private part: Buffer = Buffer.alloc(0);
  private partOf: Buffer | null = null;

  /**
   * A view of the bytes written so far, for `all` to copy with one set(): the same view while
   * the buffer and the length stay the same (a batch's head and tail change their length
   * seldom), so a new batch's bytes need neither a copy nor a view of their own. Before, they
   * were copied byte by byte into a buffer of their exact length, batch after batch.
   */
  written(): Buffer {
    if (this.part.length !== this.n || this.partOf !== this.buf) {
      this.partOf = this.buf;
      this.part = this.buf.subarray(0, this.n);
    }
    return this.part;
  }

  byte(c: number): void {
    this.room(1)[this.n++] = c;
  }

  ascii(s: string): void {
    const buf = this.room(s.length);
    let n = this.n;
    for (let i = 0; i < s.length; i++) buf[n++] = s.charCodeAt(i);
    this.n = n;
  }
}

// Buffers, as every other source copied from: one element kind keeps the copy loops monomorphic.
const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const K_TS = ascii('{"ts":');
const K_TYPE = ascii(',"type":');
const K_SEQ = ascii(',"seq":');
const K_RANK = ascii(',"dp_rank":');
const K_END = ascii('}\n');
const EMPTY = Buffer.alloc(0);
const K_RANK_NULL_END = ascii(',"dp_rank":null}\n');

/**
 * Room asked of the output before a batch: most batches' lines fit (a few KB); a larger batch
 * grows the buffer (ByteRun.room copies what it holds), which is rare and stays correct.
 */
const LEND_BYTES = 32 * 1024;

// Rare batch shapes (a batch that names no rank, an AllBlocksCleared) take the same code as the
// common ones, with other values: in V8's optimized code a null where only small ints were seen,
// or a call or property site that no batch reached yet, deoptimizes the whole hot path, and its
// recompile costs tens of ms of CPU (the first such batch of a stream paid it). So ranks are ints
// here (NO_RANK for none) and the type-specific parts are picked as data.
/** The batch names no rank (its lines: null). */
const NO_RANK = -2;
/** No guess of the rank from the last byte. */
const NO_GUESS = -1;
/** Each type's opening of a line, by type id (T_STORED, T_REMOVED, T_CLEARED). */
const OPENINGS: readonly Uint8Array[] = [K_STORED, K_REMOVED, K_CLEARED];
/** A root block's parent and the key after it, in one piece (most stores in a stream). */
const K_NULL_PARENT = Buffer.concat([K_PARENT, NULL, K_TOKEN_COUNT]);

const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;

/** What PLACEMENT_LABEL (shared/event-bounds.ts) takes, byte by byte: [A-Za-z0-9_.:@/-]. */
const LABEL_BYTE = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@/-')
  LABEL_BYTE[c.charCodeAt(0)] = 1;

/** A label that was not a word: the decoder keeps the value it had (drift, never shown). */
const LABEL_DRIFT = -2;

/** The big-endian u32 at bytes[p] (bounds checked by the caller). */
function be32(bytes: Uint8Array, p: number): number {
  return (
    (((bytes[p] as number) << 24) |
      ((bytes[p + 1] as number) << 16) |
      ((bytes[p + 2] as number) << 8) |
      (bytes[p + 3] as number)) >>>
    0
  );
}

/** Writes a block hash at the cursor into w as the exact path prints it: ints bare, bytes as hex. */
function hashInto(r: MsgpackReader, w: ByteRun): void {
  const p = r.pos;
  if (p >= r.end) throw UNHANDLED;
  const bytes = r.bytes;
  const b = bytes[p] as number;
  if (b === 0xcf) {
    r.need(9);
    w.room(20);
    // Read byte by byte: r.view would make a DataView per payload (MsgpackReader makes it lazily).
    w.n = writeU64DecimalAt(w.view(), w.n, be32(bytes, p + 1), be32(bytes, p + 5));
    r.pos = p + 9;
  } else if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xce) || (b >= 0xd0 && b <= 0xd2)) {
    let v = r.int('hash');
    const buf = w.room(11);
    if (v < 0) {
      buf[w.n++] = MINUS;
      v = -v;
    }
    w.n = writeUintDecimalAt(w.view(), w.n, v);
  } else if (b === 0xd3) {
    r.need(9);
    w.ascii(r.view.getBigInt64(p + 1).toString());
    r.pos = p + 9;
  } else if (b >= 0xc4 && b <= 0xc6) {
    const lenBytes = b === 0xc4 ? 1 : b === 0xc5 ? 2 : 4;
    r.need(1 + lenBytes);
    const len =
      lenBytes === 1
        ? (bytes[p + 1] as number)
        : lenBytes === 2
          ? ((bytes[p + 1] as number) << 8) | (bytes[p + 2] as number)
          : be32(bytes, p + 1);
    r.pos = p + 1 + lenBytes;
    r.need(len);
    const buf = w.room(2 * len + 2);
    let n = w.n;
    buf[n++] = QUOTE;
    for (let i = r.pos; i < r.pos + len; i++) {
      const x = bytes[i] as number;
      buf[n++] = HEX[x >> 4] as number;
      buf[n++] = HEX[x & 15] as number;
    }
    buf[n++] = QUOTE;
    w.n = n;
    r.pos += len;
    // The exact path prints a key that reads as a u64 bare (isIntHashKey): a short digest whose
    // hex is all decimal digits does too, so the two paths stay byte-identical.
    if (len <= 10 && isIntHashKey(buf.toString('latin1', n - 1 - 2 * len, n - 1))) {
      buf.copyWithin(n - 1 - 2 * len - 1, n - 1 - 2 * len, n - 1);
      w.n = n - 2;
    }
  } else throw UNHANDLED;
}

/** True when bytes[start, start + len) are ASCII and spell s (null / undefined: start < 0). */
function spells(
  bytes: Uint8Array,
  start: number,
  len: number,
  s: string | null | undefined,
): boolean {
  if (start < 0) return s === null || s === undefined;
  if (s === null || s === undefined || s.length !== len) return false;
  for (let i = 0; i < len; i++) {
    const c = bytes[start + i] as number;
    if (c >= 0x80 || c !== s.charCodeAt(i)) return false;
  }
  return true;
}

/** Writes the JSON lines of whole batches from their bytes; one per capture. */
export class BatchJsonWriter {
  /** The batch's lines, written in the output's buffer from linesStart (see LineOutput.lend). */
  private readonly lines = new ByteRun();
  private linesStart = 0;
  private readonly hashes = new ByteRun();
  private readonly parent = new ByteRun();
  private readonly head = new ByteRun();
  private readonly tail = new ByteRun();
  // The batch's head and tail, each a view of its ByteRun's bytes, copied into every line
  // with one set() (see ByteRun.written).
  private headPart: Buffer = Buffer.alloc(0);
  private tailPart: Buffer = Buffer.alloc(0);
  private bytes: Uint8Array = new Uint8Array(0);
  private r = new MsgpackReader(this.bytes);
  // The event being read (string fields: their start in the payload, -1 for nil, and length).
  private type = -1;
  /** Where the line's hashes start (after its head and type), or -1 before the type is read. */
  private prefixEnd = -1;
  /** The hashes were written straight into the line (else into `hashes`). */
  private hashesInLine = false;
  /** Where the hashes end in the line (when they are in it). */
  private hashesEnd = -1;
  /** A BlockStored's parent hash was written into the line right after its hashes. */
  private parentInLine = false;
  private seen = 0;
  private parentNull = true;
  private tokenCount = 0;
  private blockSize = 0;
  private loraId: number | null = null;
  private medium = -1;
  private mediumLen = 0;
  private loraName = -1;
  private loraNameLen = 0;
  private extraKeys = 0;
  private groupIdx: number | null = null;
  private specKind = -1;
  private specKindLen = 0;
  private specWindow: number | null = null;
  private metadata = 0;
  private sessionId = 0;
  private locality = -1;
  private localityLen = 0;
  private ownership = -1;
  private ownershipLen = 0;
  /** Length of the last string read. */
  private strLen = 0;
  /** Events in the batch just written. */
  private events = 0;
  /** Which kept BlockStored tail matched last. */
  private lastStored = 0;

  constructor(
    private readonly o: LineOutput,
    private readonly exact: EventJsonWriter,
  ) {}

  /**
   * Writes the lines of one batch (`rankIfNone` for lines of a batch that names no rank); returns
   * how many, or -1 with nothing written when the exact path must take the batch.
   */
  write(payload: Uint8Array, seq: number, rankIfNone: number | null): number {
    if (payload.byteLength > DEFAULT_MAX_PAYLOAD_BYTES) return -1;
    try {
      const r = new MsgpackReader(payload);
      this.r = r;
      this.bytes = payload;
      const n = r.arrayHeader();
      if (n !== 2 && n !== 3) return -1;
      // The rank comes after the events but ends every line: guess it from the last byte (a
      // fixint or nil, as engines send it) and write again in the rare case the guess was wrong
      // (NO_GUESS: the first pass is thrown away).
      const last = payload[payload.byteLength - 1] as number;
      const guess = n === 2 || last === 0xc0 ? NO_RANK : last <= 0x7f ? last : NO_GUESS;
      const ifNone = rankIfNone ?? NO_RANK;
      const start = r.pos;
      // The lines go straight into the output's buffer (committed once the batch is whole).
      this.lines.buf = this.o.lend(LEND_BYTES);
      this.linesStart = this.o.lentAt();
      let rank = this.batch(
        r,
        n,
        seq,
        guess === NO_GUESS ? NO_RANK : guess === NO_RANK ? ifNone : guess,
      );
      if (rank !== guess) {
        r.pos = start;
        rank = this.batch(r, n, seq, rank === NO_RANK ? ifNone : rank);
      }
      if (r.pos !== r.end) return -1;
      this.o.commit(this.lines.buf, this.lines.n);
      return this.events;
    } catch (e) {
      if (e instanceof Unhandled || e instanceof MsgpackError || e instanceof SchemaError)
        return -1;
      throw e;
    }
  }

  /**
   * Writes the batch's lines into `lines` with `lineRank` (NO_RANK: null); returns the rank the
   * batch names, or NO_RANK.
   */
  private batch(r: MsgpackReader, n: number, seq: number, lineRank: number): number {
    const ts = r.number('batch ts');
    if (eventTimeProblem(ts) !== null) throw UNHANDLED;
    const head = this.head;
    head.n = 0;
    head.all(K_TS);
    // Epoch seconds to the microsecond are written without String(ts) (see writeMicrosDecimalAt).
    head.room(24);
    const end = writeMicrosDecimalAt(head.view(), head.n, ts);
    if (end >= 0) head.n = end;
    else head.ascii(String(ts));
    head.all(K_TYPE);
    this.headPart = head.written();
    const tail = this.tail;
    tail.n = 0;
    tail.all(K_SEQ);
    tail.room(20);
    tail.n = writeUintDecimalAt(tail.view(), tail.n, seq);
    // One call site whichever the rank (see NO_RANK).
    tail.all(lineRank === NO_RANK ? K_RANK_NULL_END : K_RANK);
    if (lineRank !== NO_RANK) {
      tail.room(20);
      tail.n = writeUintDecimalAt(tail.view(), tail.n, lineRank);
      tail.all(K_END);
    }
    this.tailPart = tail.written();
    this.lines.n = this.linesStart;
    const events = r.arrayHeader();
    if (events < 0) throw UNHANDLED;
    for (let i = 0; i < events; i++) this.event(r);
    this.events = events;
    if (n === 2 || r.nil()) return NO_RANK;
    const rank = r.int('batch rank');
    if (rank < 0 || rank > MAX_DP_RANK) throw UNHANDLED;
    return rank;
  }

  private event(r: MsgpackReader): void {
    this.resetFields();
    let n = r.arrayHeader();
    if (n >= 0) {
      if (n === 0) throw UNHANDLED;
      this.typed(readTypeTag(r));
      const layout =
        this.type === T_STORED
          ? STORED_POSITIONS
          : this.type === T_REMOVED
            ? REMOVED_POSITIONS
            : CLEARED_POSITIONS;
      for (let i = 1; i < n; i++) {
        const id = layout[i];
        if (id === undefined) r.skip();
        else this.field(r, id);
      }
    } else if ((n = r.mapHeader()) >= 0) {
      for (let i = 0; i < n; i++) {
        const id = this.key(r);
        if (id === F_TYPE) this.typed(readTypeTag(r));
        else if (id < 0) r.skip();
        else this.field(r, id);
      }
      if (this.type < 0) throw UNHANDLED;
    } else throw UNHANDLED;
    this.line();
  }

  /** The event's type: its line starts here, so that the hashes that follow go straight in. */
  private typed(type: number): void {
    // A second type tag in one map: rare, and the exact path knows which one counts.
    if (this.type >= 0) throw UNHANDLED;
    this.type = type;
    const w = this.lines;
    w.all(this.headPart);
    w.all(OPENINGS[type] as Uint8Array);
    this.prefixEnd = w.n;
  }

  /** The known field id of the map key at the cursor, or -1. */
  private key(r: MsgpackReader): number {
    const len = r.strHeader();
    if (len < 0) throw UNHANDLED;
    const id = fieldIdAt(r.bytes, r.pos, len);
    r.pos += len;
    return id;
  }

  private resetFields(): void {
    this.type = -1;
    this.prefixEnd = -1;
    this.hashesInLine = false;
    this.parentInLine = false;
    this.seen = 0;
    this.hashes.n = 0;
    this.parentNull = true;
    this.tokenCount = 0;
    this.blockSize = 0;
    this.loraId = null;
    this.medium = -1;
    this.loraName = -1;
    this.extraKeys = 0;
    this.groupIdx = null;
    this.specKind = -1;
    this.specWindow = null;
    this.metadata = 0;
    this.sessionId = 0;
    this.locality = -1;
    this.ownership = -1;
  }

  /** Reads field `id` at the cursor by the decoder's rules (readField in decode-event.ts). */
  private field(r: MsgpackReader, id: number): void {
    this.seen |= 1 << id;
    switch (id) {
      case F_BLOCK_HASHES: {
        const n = r.arrayHeader();
        if (n < 0) throw UNHANDLED;
        // Hashes that follow the type tag (as engines send them) go straight into the line.
        this.hashesInLine =
          this.prefixEnd >= 0 &&
          this.type !== T_CLEARED &&
          (this.hashesInLine || this.lines.n === this.prefixEnd);
        // Written again (a repeated key) over a parent already in the line: rare, left.
        if (this.hashesInLine && this.parentInLine) throw UNHANDLED;
        const w = this.hashesInLine ? this.lines : this.hashes;
        w.n = this.hashesInLine ? this.prefixEnd : 0;
        for (let i = 0; i < n; i++) {
          if (i > 0) w.byte(COMMA);
          hashInto(r, w);
        }
        this.hashesEnd = w.n;
        return;
      }
      case F_PARENT: {
        const lines = this.lines;
        // A parent read again (a repeated key) takes the place of the one in the line.
        if (this.parentInLine) lines.n = this.hashesEnd;
        this.parentInLine = false;
        this.parentNull = r.nil();
        if (this.parentNull) return;
        // A BlockStored's parent right after its hashes in the line (as engines send them) goes
        // into the line too: copying it there from a run of its own was a byte loop per event.
        if (this.type === T_STORED && this.hashesInLine && lines.n === this.hashesEnd) {
          lines.all(K_PARENT);
          hashInto(r, lines);
          this.parentInLine = true;
          return;
        }
        this.parent.n = 0;
        hashInto(r, this.parent);
        return;
      }
      case F_TOKEN_IDS:
        this.tokenCount = r.skipIntArray('token_ids');
        return;
      case F_BLOCK_SIZE:
        this.blockSize = bounded(r.int('block_size'), 1, MAX_BLOCK_SIZE);
        return;
      case F_LORA_ID:
        this.loraId = r.nil() ? null : bounded(r.int('lora_id'), INT32_MIN, INT32_MAX);
        return;
      case F_MEDIUM:
        this.medium = this.str(r);
        this.mediumLen = this.strLen;
        return;
      case F_LORA_NAME: {
        const b = r.peek();
        if ((b >= 0x80 && b <= 0x8f) || b === 0xde || b === 0xdf) this.metadata += countPresence(r);
        else {
          this.loraName = this.str(r);
          this.loraNameLen = this.strLen;
        }
        return;
      }
      case F_EXTRA_KEYS:
        this.extraKeys = countExtraKeys(r, 'extra_keys');
        return;
      case F_GROUP_IDX:
        this.groupIdx = r.nil() ? null : bounded(r.int('group_idx'), 0, MAX_GROUP_IDX);
        return;
      case F_SPEC_KIND:
        this.specKind = this.str(r);
        this.specKindLen = this.strLen;
        return;
      case F_SPEC_WINDOW:
        this.specWindow = r.nil() ? null : bounded(r.int('window'), 0, MAX_WINDOW);
        return;
      case F_METADATA:
      case F_CACHE_SALT:
        this.metadata += countPresence(r);
        return;
      case F_SESSION_ID:
        this.sessionId = r.nil() ? 0 : (r.skip(), 1);
        return;
      case F_LOCALITY:
      case F_OWNERSHIP: {
        const at = this.label(r);
        if (at === LABEL_DRIFT) return;
        if (id === F_LOCALITY) [this.locality, this.localityLen] = [at, this.strLen];
        else [this.ownership, this.ownershipLen] = [at, this.strLen];
        return;
      }
      default:
        r.skip();
    }
  }

  /** A string's start (its length in strLen), or -1 for nil. */
  private str(r: MsgpackReader): number {
    if (r.nil()) return -1;
    const len = r.strHeader();
    if (len < 0) throw UNHANDLED;
    const at = r.pos;
    r.pos += len;
    this.strLen = len;
    return at;
  }

  /** A locality / ownership label (readLabel's rules): its start, -1 for nil, or LABEL_DRIFT. */
  private label(r: MsgpackReader): number {
    if (r.nil()) return -1;
    const len = r.strHeader();
    if (len > MAX_LABEL) {
      r.pos += len;
      return LABEL_DRIFT;
    }
    if (len < 0) {
      const b = r.peek();
      // A tier id sent as a number prints as text: rare, left to the exact path.
      if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3)) throw UNHANDLED;
      r.skip();
      return LABEL_DRIFT;
    }
    const at = r.pos;
    r.pos += len;
    const bytes = this.bytes;
    for (let i = at; i < at + len; i++) {
      const c = bytes[i] as number;
      if (c >= 0x80 || LABEL_BYTE[c] === 0) return LABEL_DRIFT;
    }
    if (len === 0) return LABEL_DRIFT;
    this.strLen = len;
    return at;
  }

  /** Ends the line of the event just read (its head and hashes may be in it already). */
  private line(): void {
    const w = this.lines;
    // Read for every type, so that an AllBlocksCleared meets no site unfed (see NO_RANK).
    const type = this.type;
    const medium = this.medium;
    const hasMedium = medium >= 0;
    let rest: Uint8Array = NULL;
    if (type === T_STORED) {
      const need = (1 << F_BLOCK_HASHES) | (1 << F_TOKEN_IDS) | (1 << F_BLOCK_SIZE);
      if ((this.seen & need) !== need) throw UNHANDLED;
      if (!this.hashesInLine) w.put(this.hashes.buf, 0, this.hashes.n);
      if (this.parentNull) w.all(K_NULL_PARENT);
      else if (this.parentInLine) w.all(K_TOKEN_COUNT);
      else {
        w.all(K_PARENT);
        w.put(this.parent.buf, 0, this.parent.n);
        w.all(K_TOKEN_COUNT);
      }
      w.room(16);
      w.n = writeUintDecimalAt(w.view(), w.n, this.tokenCount);
      rest = this.storedRest();
    } else if (type === T_REMOVED) {
      if ((this.seen & (1 << F_BLOCK_HASHES)) === 0) throw UNHANDLED;
      if (!this.hashesInLine) w.put(this.hashes.buf, 0, this.hashes.n);
      rest = this.removedRest();
    } else if (hasMedium) {
      this.plainString(medium, this.mediumLen);
      rest = EMPTY;
    }
    // An AllBlocksCleared without a medium: NULL.
    w.all(rest);
    w.all(this.tailPart);
  }

  /** A string that JSON.stringify would print as it is, quoted; else the exact path takes it. */
  private plainString(at: number, len: number): void {
    const bytes = this.bytes;
    for (let i = at; i < at + len; i++) {
      const c = bytes[i] as number;
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === 0x5c) throw UNHANDLED;
    }
    const w = this.lines;
    w.byte(QUOTE);
    w.put(bytes, at, at + len);
    w.byte(QUOTE);
  }

  /** The bytes of the BlockStored tail for these fields: the exact path's, kept for both. */
  private storedRest(): Uint8Array {
    const b = this.bytes;
    const rests: readonly StoredRest[] = this.exact.storedRestsKept;
    // The tail that matched last first: a stream mostly repeats one.
    for (let k = 0; k <= rests.length; k++) {
      const i = k === 0 ? this.lastStored : k - 1;
      const x = rests[i];
      if (x === undefined) continue;
      if (
        x.blockSize === this.blockSize &&
        x.loraId === this.loraId &&
        x.extraKeys === this.extraKeys &&
        x.groupIdx === this.groupIdx &&
        x.specWindow === this.specWindow &&
        x.metadata === this.metadata &&
        x.sessionId === this.sessionId &&
        spells(b, this.medium, this.mediumLen, x.medium) &&
        spells(b, this.loraName, this.loraNameLen, x.loraName) &&
        spells(b, this.specKind, this.specKindLen, x.specKind) &&
        spells(b, this.locality, this.localityLen, x.locality) &&
        spells(b, this.ownership, this.ownershipLen, x.ownership)
      ) {
        this.lastStored = i;
        return x.bytes;
      }
    }
    return this.exact.keepStoredRest({
      blockSize: this.blockSize,
      loraId: this.loraId,
      medium: this.text(this.medium, this.mediumLen),
      loraName: this.text(this.loraName, this.loraNameLen),
      extraKeys: this.extraKeys,
      groupIdx: this.groupIdx,
      specKind: this.text(this.specKind, this.specKindLen),
      specWindow: this.specWindow,
      metadata: this.metadata,
      sessionId: this.sessionId,
      locality: this.text(this.locality, this.localityLen) ?? undefined,
      ownership: this.text(this.ownership, this.ownershipLen) ?? undefined,
    });
  }

  /** A string field's value, decoded as the decoder does (MsgpackReader.strBody); null for nil. */
  private text(at: number, len: number): string | null {
    if (at < 0) return null;
    const r = this.r;
    const pos = r.pos;
    r.pos = at;
    const v = r.strBody(len);
    r.pos = pos;
    return v;
  }

  /** The bytes of the BlockRemoved tail for these fields: the exact path's, kept for both. */
  private removedRest(): Uint8Array {
    const b = this.bytes;
    const rests: readonly RemovedRest[] = this.exact.removedRestsKept;
    for (let i = 0; i < rests.length; i++) {
      const x = rests[i] as RemovedRest;
      if (
        x.groupIdx === this.groupIdx &&
        spells(b, this.medium, this.mediumLen, x.medium) &&
        spells(b, this.locality, this.localityLen, x.locality) &&
        spells(b, this.ownership, this.ownershipLen, x.ownership)
      )
        return x.bytes;
    }
    return this.exact.keepRemovedRest({
      medium: this.text(this.medium, this.mediumLen),
      groupIdx: this.groupIdx,
      locality: this.text(this.locality, this.localityLen) ?? undefined,
      ownership: this.text(this.ownership, this.ownershipLen) ?? undefined,
    });
  }
}

/** v when min <= v <= max; else the exact path takes the batch (and reports the bad event). */
function bounded(v: number, min: number, max: number): number {
  if (v < min || v > max) throw UNHANDLED;
  return v;
}
