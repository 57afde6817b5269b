// One interning of hash keys for the model's forest and the analysis together. Each side used to
// keep its own HashIds, so every block cost two look-ups by text (a parse, a mix and two or three
// cache misses each), the largest single share of an open. Here a hash has one shared id (sid)
// while either side keeps it: the forest's retention (its known blocks) and the analysis' (held
// hashes and ghost lists) stay each their own, recorded as the sid's two owner marks, and the sid
// goes once neither side keeps it. The analysis keys its state by the sid itself; the forest keeps
// its own dense ids (its columns are large per block) and finds them through the sid.
//
// A batch applied to both (BatchIds) is looked up once before either side runs: while held, a sid
// that loses its last owner stays valid (and names its hash) until settle(), so an id looked up for
// a later event of the batch never names another hash by then.

import type { HashKey } from '../../shared/events';
import { FIND_ALL_KEYS, HashIds, TEXT_KEY, type DecimalParts } from './hash-ids';

/** No id / no forest id. */
export const NO_ID = -1;
/** The analysis' mark: it keeps the sid; DEAD: the sid is free. */
const KEPT = 1;
const DEAD = -1;

/**
 * The table's one payload value per sid holds both marks: (forest id + 1) * 4 + (analysis' mark
 * + 1), below 2^32 as the table's payload word must be: forest ids stay below 2^30 - 1 (a billion
 * known blocks would take 170 GB of the forest's columns).
 */
const pack = (forestId: number, mark: number): number => (forestId + 1) * 4 + (mark + 1);
const forestOf = (payload: number): number => Math.floor(payload / 4) - 1;
const markOf = (payload: number): number => (payload % 4) - 1;

/**
 * Hash keys to shared ids, with the forest's id (NO_ID: none) and the analysis' mark (0, KEPT or
 * DEAD) per sid, kept as the table's payload: in the cache line its look-up reads anyway.
 */
export class SharedHashIds {
  private readonly table = new HashIds();
  private readonly free: number[] = [];
  private next = 0;
  private held = false;
  /**
   * Sids that lost their last owner (or were made by intern) while held: settle() frees them. The
   * first `pendingCount` of the array: a count, not its length, since setting an array's length to
   * 0 (per batch) drops its storage, to be grown again.
   */
  private readonly pending: number[] = [];
  private pendingCount = 0;

  /** Sids handed out so far (an upper bound for arrays keyed by sid). */
  get limit(): number {
    return this.next;
  }

  /** Sids in use now (handed out and not free). */
  get live(): number {
    return this.next - this.free.length;
  }

  /** Bytes of the table and its per-sid values (for the memory figures). */
  bytes(): number {
    return this.table.bytes() + 8 * this.free.length;
  }

  /** The sid of key, or NO_ID when neither side keeps it (nor a held batch looked it up). */
  find(key: HashKey): number {
    return this.table.find(key);
  }

  /** The sid of the canonical decimal hash with these parts (hash-ids.ts), or NO_ID. */
  findParts(hi: number, lo: number): number {
    return this.table.findParts(hi, lo);
  }

  /** The sid of key, made when it has none (the caller takes it as an owner next). */
  intern(key: HashKey): number {
    const found = this.table.find(key);
    return found !== NO_ID ? found : this.add(key);
  }

  /**
   * Interns the first `count` keys into out at their index (NO_ID for a null), as intern() one
   * after another would: key i is the decimal with parts his[i], los[i], or, where his[i] is
   * TEXT_KEY, keys[i] (see HashIds.findAll). The table's findAll a chunk at a time, then a sid
   * made for each key it did not find.
   */
  internAll(
    his: Float64Array,
    los: Float64Array,
    keys: readonly (HashKey | null)[],
    out: Int32Array,
    count: number,
  ): void {
    const table = this.table;
    for (let from = 0; from < count; from += FIND_ALL_KEYS) {
      const to = Math.min(count, from + FIND_ALL_KEYS);
      table.findAll(his, los, keys, from, to, out);
      for (let i = from; i < to; i += 1) {
        if (out[i] !== NO_ID) continue;
        const hi = his[i] as number;
        if (hi !== TEXT_KEY) {
          const lo = los[i] as number;
          // Made since findAll when the batch named the hash before.
          const found = table.findParts(hi, lo);
          out[i] = found !== NO_ID ? found : this.addParts(hi, lo);
        } else {
          const key = keys[i] as HashKey | null;
          if (key !== null) out[i] = this.intern(key);
        }
      }
    }
  }

  /** A new sid for the decimal with these parts, which has none. */
  private addParts(hi: number, lo: number): number {
    const sid = this.free.pop() ?? this.next++;
    this.table.setParts(hi, lo, sid);
    return this.unowned(sid);
  }

  /** A new sid for key, which has none. */
  private add(key: HashKey): number {
    const sid = this.free.pop() ?? this.next++;
    this.table.set(key, sid);
    return this.unowned(sid);
  }

  /** Marks a new sid as owned by neither side yet. */
  private unowned(sid: number): number {
    this.table.setPayload(sid, pack(NO_ID, 0));
    // Looked up for a batch but maybe kept by neither side: settle() frees it then.
    if (this.held) this.pending[this.pendingCount++] = sid;
    return sid;
  }

  /** The hash a sid names. */
  keyOf(sid: number): HashKey {
    return this.table.keyOf(sid);
  }

  /** Reads sid's hash into out when it is a canonical decimal; false if not. */
  keyParts(sid: number, out: DecimalParts): boolean {
    return this.table.keyParts(sid, out);
  }

  /** The forest's id of sid's block, NO_ID when the forest does not know it. */
  forestId(sid: number): number {
    return forestOf(this.table.payload(sid));
  }

  /** The forest knows sid's block as id (NO_ID: it forgot the block). */
  setForestId(sid: number, id: number): void {
    this.table.setPayload(sid, pack(id, markOf(this.table.payload(sid))));
    if (id === NO_ID) this.drop(sid);
  }

  /** Whether the analysis keeps sid. */
  kept(sid: number): boolean {
    return markOf(this.table.payload(sid)) === KEPT;
  }

  /** The analysis starts or stops keeping sid. */
  setKept(sid: number, kept: boolean): void {
    this.table.setPayload(sid, pack(forestOf(this.table.payload(sid)), kept ? KEPT : 0));
    if (!kept) this.drop(sid);
  }

  /** From now until settle(), a sid without owners stays (a batch's looked-up ids stay valid). */
  hold(): void {
    this.held = true;
  }

  /** Frees what lost its owners while held, and ends the hold. */
  settle(): void {
    this.held = false;
    const pending = this.pending;
    // drop() adds nothing while not held.
    for (let i = 0; i < this.pendingCount; i += 1) this.drop(pending[i] as number);
    this.pendingCount = 0;
  }

  /** Frees sid when neither side keeps it (at settle() while held). */
  private drop(sid: number): void {
    const table = this.table;
    const payload = table.payload(sid);
    if (payload !== pack(NO_ID, 0)) return;
    if (this.held) {
      this.pending[this.pendingCount++] = sid;
      return;
    }
    table.setPayload(sid, pack(NO_ID, DEAD));
    this.table.delete(sid);
    this.free.push(sid);
  }
}
