// Which sources hold each hash now (in any medium), with the router's running figures: hashes
// held by two or more sources, the duplicate blocks they make, and the pairwise overlap.
// It is also the analysis' interner: a held hash's id is its shared id (SharedHashIds: one table
// with the model's forest when both are fed together), looked up once per block, and what the
// analysis keeps per held hash (its holders, its depth; R of every (source, medium)) is keyed by
// that id, in typed arrays where it is one value per hash. The ghost lists are keyed by it too, so
// a hash in some G keeps its id (ghost references count how many G hold it): a re-store then finds
// its G entry without hashing its text again. The analysis lets go of an id once no source holds
// its hash and no G does, so the arrays stay as large as the hashes tracked.
//
// Holders are bits, one per holder slot: a source joins and gets the lowest free slot, and gives
// it back when it is removed (holding nothing by then), so the bit set is as wide as the most
// sources there were at once (64 ranks: two 32-bit words per hash), never a Map per shared hash.

import type { HashKey } from '../../shared/events';
import type { DecimalParts } from '../collections/hash-ids';
import { NO_ID, SharedHashIds } from '../collections/shared-hash-ids';
import type { GhostSlots } from './ghost-order';

const FIRST_IDS = 1024;
/**
 * Ids per page of info. The info grows a page at a time (the first page doubling up to a whole
 * one): a doubling array held twice the ids in use, and old and new together while it was copied.
 */
const PAGE_BITS = 16;
const PAGE_IDS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_IDS - 1;
/**
 * The first word of an id's info: its depth in the low 24 bits (DEPTH_NONE: none), how many ghost
 * lists hold it in the high 8 (past REFS_MAX, the rest in `moreRefs`: a hash in the G of 255
 * (source, medium) pairs at once). One word, not two: 4 bytes less per tracked hash (a ghost list
 * of a million entries costs 4 MB less). A depth saturates at DEPTH_MAX blocks (16.7 M, a chain of
 * 268 M tokens at 16 a block).
 */
const HEAD = 0;
const DEPTH_MASK = 0xffffff;
const DEPTH_NONE = DEPTH_MASK;
const DEPTH_MAX = DEPTH_MASK - 1;
const REF_SHIFT = 24;
const ONE_REF = 1 << REF_SHIFT;
const REFS_MAX = 255;
/**
 * Cells for the slots of the ghost orders holding the id: one a G is enough for a hash in two G at
 * once (its GPU and CPU copies evicted, or two sources'); a third G keeps its slot in its own
 * table (a look-up more). A cell is (tag + 1) << SLOT_BITS | slot, 0 when empty; an order whose tag
 * or slot does not fit keeps its slots in its own table too. Two cells, not four: 8 bytes less per
 * id, 11 MB of serve's peak on a stream of new blocks (1.4 M ids); one cell cost the analysis
 * bench's two ranks, whose hashes sit in both ranks' G, about a quarter more CPU.
 */
const GHOST = 1;
const GHOST_CELLS = 2;
const SLOT_BITS = 23;
const SLOT_MASK = (1 << SLOT_BITS) - 1;
/** Tags + 1 below this fit a cell's top 8 bits and stay a positive Int32. */
const TAG_LIMIT = 255;
const WORDS = GHOST + GHOST_CELLS;

/**
 * What a ghost list needs of the interner: references that keep an id, the id's hash, and a place
 * for one order's slot of it.
 */
export interface GhostIds extends GhostSlots {
  /** One more G holds id. */
  ghostIn(id: number): void;
  /** One G fewer holds id (the id is recycled when nothing else keeps it). */
  ghostOut(id: number): void;
  /** Whether some G holds id. */
  inGhosts(id: number): boolean;
  /** The hash an id names. */
  keyOf(id: number): HashKey;
  /** Reads id's hash into out when it is a canonical decimal (hash-ids.ts); false if not. */
  keyParts(id: number, out: DecimalParts): boolean;
}

/** Source holdings per held hash, by holder slot, and the hash's id. */
export class Holdings implements GhostIds {
  /** 32-bit words of holder bits per id (slots 32 x words). */
  private words = 1;
  /** Int32s per id: depth and ghost references (one word), ghost order cells, the holder words. */
  private stride = WORDS + 1;
  /**
   * Per id, side by side so that one cache line serves a block (16 bytes with one word of holder
   * bits): its depth, blocks from the root when its chain was seen from the root, and how many
   * ghost lists (exact part or tail) hold it (see HEAD); the ghost orders' slots of it (see
   * ghost-order.ts); a bit per holder slot. By page: id's info starts at stride * (id & PAGE_MASK)
   * in pages[id >>> PAGE_BITS].
   */
  private pages: Int32Array[] = [newInfo(FIRST_IDS, this.stride)];
  /** Whether each slot is taken by a source. */
  private readonly taken: boolean[] = [];
  /** Hashes held by both of two slots: a dense matrix (32 x words square), no Map per bump. */
  private pairs = new Int32Array(32 * 32);
  /** Reused by holders(), so a lookup allocates nothing. */
  private readonly list: number[] = [];
  private ghostTags = 0;
  /** Ghost references past REFS_MAX, by id (rare). */
  private readonly moreRefs = new Map<number, number>();
  /** Hashes held by two or more sources. */
  sharedNow = 0;
  /** Sum over hashes of (holders - 1). */
  duplicateNow = 0;

  /** ids: the hash id table, shared with the model's forest when both are fed together. */
  constructor(private readonly ids = new SharedHashIds()) {}

  /** A slot for a new source: the lowest free one (widening the bit sets when none is). */
  join(): number {
    let slot = this.taken.indexOf(false);
    if (slot < 0) slot = this.taken.length;
    this.taken[slot] = true;
    if (slot >= 32 * this.words) this.widen();
    return slot;
  }

  /** A removed source gives its slot back; it holds nothing by now (its R were cleared). */
  leave(slot: number): void {
    this.taken[slot] = false;
  }

  /** The id of a held (or ghosted) hash, or -1 when it has none. */
  find(hash: HashKey): number {
    return this.keptId(this.ids.find(hash));
  }

  /** sid (a shared id a batch was looked up to, or NO_ID) when it is the id of a held hash, else -1. */
  keptId(sid: number): number {
    return sid !== NO_ID && this.ids.kept(sid) ? sid : NO_ID;
  }

  /** A new id for a hash that find() just said has none; add a holder next. */
  intern(hash: HashKey): number {
    return this.keep(this.ids.intern(hash));
  }

  /** Makes sid, the shared id of a hash that keptId() just said has none, this hash's id. */
  keep(sid: number): number {
    const page = this.pages[sid >>> PAGE_BITS];
    if (page === undefined || this.stride * (sid & PAGE_MASK) >= page.length) this.addPages(sid);
    this.ids.setKept(sid, true);
    return sid;
  }

  /** Bytes of the per-id info and the pair matrix (for the memory figures). */
  bytes(): number {
    let n = this.pairs.byteLength;
    for (const p of this.pages) n += p.byteLength;
    return n;
  }

  /** The hash an id names. */
  keyOf(id: number): HashKey {
    return this.ids.keyOf(id);
  }

  /** Reads id's hash into out when it is a canonical decimal; false if not. */
  keyParts(id: number, out: DecimalParts): boolean {
    return this.ids.keyParts(id, out);
  }

  /** One more ghost list holds id. */
  ghostIn(id: number): void {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + HEAD;
    const head = info[at] as number;
    // Int32 wrap-around keeps the bits: the refs are read back unsigned (>>> REF_SHIFT).
    if (head >>> REF_SHIFT < REFS_MAX) info[at] = head + ONE_REF;
    else this.moreRefs.set(id, (this.moreRefs.get(id) ?? 0) + 1);
  }

  /** One ghost list fewer holds id; the id goes when no source holds it either. */
  ghostOut(id: number): void {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + HEAD;
    const head = info[at] as number;
    if (head >>> REF_SHIFT === REFS_MAX && this.moreRefs.size > 0) {
      const more = this.moreRefs.get(id);
      if (more !== undefined) {
        if (more === 1) this.moreRefs.delete(id);
        else this.moreRefs.set(id, more - 1);
        return;
      }
    }
    info[at] = head - ONE_REF;
    if (head >>> REF_SHIFT === 1 && !this.held(id)) this.recycle(id);
  }

  /** Whether some ghost list holds id. */
  inGhosts(id: number): boolean {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    return (info[this.stride * (id & PAGE_MASK) + HEAD] as number) >>> REF_SHIFT > 0;
  }

  /** A tag for a new ghost order. */
  ghostTag(): number {
    return this.ghostTags++;
  }

  /** id's slot in the ghost order tagged tag when it is kept here, else -1. */
  ghostSlot(id: number, tag: number): number {
    const at = this.ghostCell(id, tag + 1);
    if (at < 0) return -1;
    return ((this.pages[id >>> PAGE_BITS] as Int32Array)[at] as number) & SLOT_MASK;
  }

  /** Keeps id's slot for the order tagged tag unless no cell is free (or it does not fit): false. */
  setGhostSlot(id: number, tag: number, slot: number): boolean {
    if (tag + 1 >= TAG_LIMIT || slot > SLOT_MASK) return false;
    let at = this.ghostCell(id, tag + 1);
    if (at < 0) at = this.ghostCell(id, 0);
    if (at < 0) return false;
    (this.pages[id >>> PAGE_BITS] as Int32Array)[at] = ((tag + 1) << SLOT_BITS) | slot;
    return true;
  }

  /** Forgets the slot kept here for the order tagged tag. */
  clearGhostSlot(id: number, tag: number): void {
    const at = this.ghostCell(id, tag + 1);
    if (at >= 0) (this.pages[id >>> PAGE_BITS] as Int32Array)[at] = 0;
  }

  /** Where id's cell whose tag part is tagPart (0: an empty one) is in id's page, or -1. */
  private ghostCell(id: number, tagPart: number): number {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const base = this.stride * (id & PAGE_MASK) + GHOST;
    for (let i = base; i < base + GHOST_CELLS; i += 1)
      if ((info[i] as number) >>> SLOT_BITS === tagPart) return i;
    return -1;
  }

  /** Ids handed out so far (an upper bound for arrays keyed by id). */
  get idLimit(): number {
    return this.ids.limit;
  }

  /** Whether a source other than the one in slot holds id. */
  heldByOther(id: number, slot: number): boolean {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const base = this.stride * (id & PAGE_MASK) + WORDS;
    const own = slot >>> 5;
    for (let w = 0; w < this.words; w += 1) {
      let bits = info[base + w] as number;
      if (w === own) bits &= ~(1 << (slot & 31));
      if (bits !== 0) return true;
    }
    return false;
  }

  /** Whether the source in slot holds id. */
  heldBy(id: number, slot: number): boolean {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const bits = info[this.stride * (id & PAGE_MASK) + WORDS + (slot >>> 5)] as number;
    return ((bits >>> (slot & 31)) & 1) === 1;
  }

  /**
   * Writes the slots holding id into out from its start, ascending, and says how many. Into a
   * reused array and a count: setting an array's length to 0 (per store) drops its storage.
   */
  holdersInto(id: number, out: number[]): number {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const base = this.stride * (id & PAGE_MASK) + WORDS;
    let n = 0;
    for (let w = 0; w < this.words; w += 1) {
      // Lowest set bit first: as many steps as holders, not 32 per word.
      for (let bits = info[base + w] as number; bits !== 0; bits &= bits - 1)
        out[n++] = 32 * w + 31 - Math.clz32(bits & -bits);
    }
    return n;
  }

  /** The depth recorded for id (-1: no id), null when none is known (or nobody holds it). */
  depthOf(id: number): number | null {
    if (id < 0) return null;
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const d = (info[this.stride * (id & PAGE_MASK) + HEAD] as number) & DEPTH_MASK;
    return d === DEPTH_NONE ? null : d;
  }

  /** Records id's depth unless it has one. */
  keepDepth(id: number, depth: number): void {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + HEAD;
    const head = info[at] as number;
    if ((head & DEPTH_MASK) === DEPTH_NONE)
      info[at] = (head & ~DEPTH_MASK) | Math.min(depth, DEPTH_MAX);
  }

  /** The source in slot starts holding id (the caller knows it did not). */
  add(id: number, slot: number): void {
    // Most stores are of a hash no other source holds: one bit set, no pair to count.
    if (this.held(id)) {
      const list = this.list;
      const n = this.holdersInto(id, list);
      for (let i = 0; i < n; i += 1) this.bump(list[i] as number, slot, 1);
      if (n === 1) this.sharedNow += 1;
      this.duplicateNow += 1;
    }
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + WORDS + (slot >>> 5);
    info[at] = (info[at] as number) | (1 << (slot & 31));
  }

  /** The source in slot no longer holds id (a no-op when it did not); the last holder's going frees the id. */
  remove(id: number, slot: number): void {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + WORDS + (slot >>> 5);
    const bits = info[at] as number;
    const bit = 1 << (slot & 31);
    if ((bits & bit) === 0) return;
    info[at] = bits & ~bit;
    if (!this.held(id)) {
      this.release(id);
      return;
    }
    // Still held: the slot leaves the pairs it made with each holder left.
    const list = this.list;
    const n = this.holdersInto(id, list);
    this.duplicateNow -= 1;
    for (let i = 0; i < n; i += 1) this.bump(list[i] as number, slot, -1);
    if (n === 1) this.sharedNow -= 1;
  }

  /** Hashes held by both the sources in slots a and b now. */
  overlap(a: number, b: number): number {
    return this.pairs[a * 32 * this.words + b] as number;
  }

  /** Whether any source holds id. */
  private held(id: number): boolean {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const base = this.stride * (id & PAGE_MASK) + WORDS;
    for (let w = 0; w < this.words; w += 1) if (info[base + w] !== 0) return true;
    return false;
  }

  /** The last holder went: the hash is no longer held (its depth goes); its id may stay for G. */
  private release(id: number): void {
    const info = this.pages[id >>> PAGE_BITS] as Int32Array;
    const at = this.stride * (id & PAGE_MASK) + HEAD;
    const head = (info[at] as number) | DEPTH_NONE;
    info[at] = head;
    if (head >>> REF_SHIFT === 0) this.recycle(id);
  }

  private recycle(id: number): void {
    this.ids.setKept(id, false);
  }

  /** Pages up to sid's, fresh (no depth, ghost reference or holder); the first grows to a whole one. */
  private addPages(sid: number): void {
    const pages = this.pages;
    const whole = PAGE_IDS * this.stride;
    const first = pages[0] as Int32Array;
    if (first.length < whole) {
      const need = sid >= PAGE_IDS ? whole : this.stride * (sid + 1);
      let n = first.length;
      while (n < need) n *= 2;
      const grown = newInfo(Math.min(n, whole) / this.stride, this.stride);
      grown.set(first);
      pages[0] = grown;
    }
    while (pages.length <= sid >>> PAGE_BITS) pages.push(newInfo(PAGE_IDS, this.stride));
  }

  /** One more word of holder bits per id, and the pair matrix to match (rare: 32 more sources). */
  private widen(): void {
    const stride = this.stride + 1;
    this.pages = this.pages.map((old) => {
      const ids = old.length / this.stride;
      const info = newInfo(ids, stride);
      for (let id = 0; id < ids; id += 1)
        info.set(old.subarray(this.stride * id, this.stride * (id + 1)), stride * id);
      return info;
    });
    const n = 32 * this.words;
    const pairs = new Int32Array((n + 32) * (n + 32));
    for (let a = 0; a < n; a += 1) pairs.set(this.pairs.subarray(a * n, (a + 1) * n), a * (n + 32));
    this.stride = stride;
    this.pairs = pairs;
    this.words += 1;
  }

  private bump(a: number, b: number, d: number): void {
    // Both orders, so overlap() reads one cell whichever way it is asked.
    const n = 32 * this.words;
    this.pairs[a * n + b] = (this.pairs[a * n + b] as number) + d;
    this.pairs[b * n + a] = (this.pairs[b * n + a] as number) + d;
  }
}

/** Info for n ids of `stride` Int32s: no depth, no ghost reference or slot, no holder. */
function newInfo(n: number, stride: number): Int32Array {
  const info = new Int32Array(stride * n);
  for (let i = HEAD; i < info.length; i += stride) info[i] = DEPTH_NONE;
  return info;
}
