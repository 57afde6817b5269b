// The fields of every known block, one typed column per field, indexed by a small integer id that
// is reused once the block is forgotten. Why not an object per block: a session replays millions
// of stores through the 200,000 evicted blocks the forest keeps, and an object (with its history
// arrays) per block lived just long enough to be promoted before it died, so V8 grew the heap to
// four times the live size between major collections. Columns are a few large allocations (in
// pages, see NodePage) that are rewritten in place: a store or a removal allocates nothing. A
// block's hash is not kept here as text: it is its sid's in the forest's SharedHashIds, and its
// parent's is kept as the two numbers of a decimal hash (a string per block and per parent were
// 10 MB of the service's heap at 250,000 known blocks, and garbage that reached the old generation
// as blocks were forgotten).

import type { HashKey } from '../../shared/events';
import { decimalKeyText, parseDecimalKey, type DecimalParts } from '../collections/hash-ids';
import { HISTORY_LEN } from './block-node';
import { grown } from '../collections/grown-column';

/** No node: an empty link, an unknown parent, a block with no medium. */
export const NONE = -1;

const PAGE_BITS = 14;
/** Ids per page: id's fields are at id & NODE_MASK in the columns of page id >> 14. */
export const NODE_PAGE = 1 << PAGE_BITS;
export const NODE_MASK = NODE_PAGE - 1;
const INITIAL_CAPACITY = 1024;
/** parentHi of a block with no parent; NaN: a parent that is no decimal (kept in parentText). */
const NO_PARENT = -1;

/**
 * The columns of NODE_PAGE ids (the first page fewer until it grows to a whole one). The table
 * grows a page at a time: its columns doubled held twice the blocks known and, while they were
 * copied, old and new together (40 MB to 80 MB at once when a stream with lost removals passed
 * 262,144 known blocks). A caller reads a block's page once and its columns at id & NODE_MASK:
 * one load more than a flat column, not one per column (pages per column cost the model 30%).
 */
export class NodePage {
  /** 1 for an id that names a known block, 0 for a free one. */
  readonly live: Uint8Array;
  /** The order in which the known blocks became known (a count of allocs). */
  readonly born: Float64Array;
  /**
   * The parent hash as last stored (it may name a block that is not known): a canonical decimal's
   * parts (hash-ids.ts), NO_PARENT hi for none, NaN hi for a parent kept as text in parentText.
   */
  readonly parentHi: Float64Array;
  readonly parentLo: Float64Array;
  readonly firstStored: Float64Array;
  readonly lastStore: Float64Array;
  readonly lastSeen: Float64Array;
  /** NaN while the block has no lifetime (never evicted, or let go without an eviction). */
  readonly lastLifetime: Float64Array;
  readonly tokens: Float64Array;
  /** Index into the forest's media, NONE for none. */
  readonly medium: Int32Array;
  readonly timesStored: Int32Array;
  /** Stores while known but resident nowhere (re-stores after eviction). */
  readonly restores: Int32Array;
  /** Times the block became resident nowhere (the count behind removedAt). */
  readonly removals: Int32Array;
  /** (source, medium) pairs holding the block now. */
  readonly holders: Int32Array;
  /** Bit i: source i holds it now / ever stored it (sources 0..30). */
  readonly srcMask: Int32Array;
  readonly seenMask: Int32Array;
  /** Known blocks naming this one as their parent. */
  readonly children: Int32Array;
  /** 1 while the block is in the forest's evicted list. */
  readonly evicted: Uint8Array;
  /** The evicted list's links (older, newer). */
  readonly prev: Int32Array;
  readonly next: Int32Array;
  /** 1 while the block is a leaf (no known child); leafPrev / leafNext link the leaves in order. */
  readonly leaf: Uint8Array;
  readonly leafPrev: Int32Array;
  readonly leafNext: Int32Array;
  /** Bumped whenever an id is handed out or given back: (id, gen) names one life of an id. */
  readonly gen: Int32Array;
  /**
   * The parent's id and gen when it was last found: a look-up by hash is then needed only once
   * that life ended (the parent forgotten, perhaps stored again under a new id). NONE: not found.
   */
  readonly parentId: Int32Array;
  readonly parentGen: Int32Array;
  /** Bit s: resident-set slot s (a source and medium, see resident-id-slot.ts) holds the block. */
  readonly slots: Int32Array;
  /**
   * The store and removal times while there are two of each at most: most blocks are stored once
   * or twice (a GPU store, then its offload to CPU) and removed once or twice, so the rings of
   * the table are taken only by a third store or removal (3 columns of 8 bytes instead of 128
   * bytes per block: 8 M resident blocks kept 1 GB of rings, and the 200,000 evicted blocks of a
   * stream offloaded to CPU kept 32 MB). The first store's time is firstStored: a block is made
   * known by its first store, at its time.
   */
  readonly onlyRemovedAt: Float64Array;
  readonly secondStoredAt: Float64Array;
  readonly secondRemovedAt: Float64Array;
  /** Index of id's history in the table's ring pool, NONE while it has none. */
  readonly history: Int32Array;
  /** The id of the block's hash in the forest's SharedHashIds. */
  readonly sid: Int32Array;

  constructor(
    readonly size: number,
    from?: NodePage,
  ) {
    this.live = column(Uint8Array, size, from?.live);
    this.born = column(Float64Array, size, from?.born);
    this.parentHi = column(Float64Array, size, from?.parentHi);
    this.parentLo = column(Float64Array, size, from?.parentLo);
    this.firstStored = column(Float64Array, size, from?.firstStored);
    this.lastStore = column(Float64Array, size, from?.lastStore);
    this.lastSeen = column(Float64Array, size, from?.lastSeen);
    this.lastLifetime = column(Float64Array, size, from?.lastLifetime);
    this.tokens = column(Float64Array, size, from?.tokens);
    this.medium = column(Int32Array, size, from?.medium);
    this.timesStored = column(Int32Array, size, from?.timesStored);
    this.restores = column(Int32Array, size, from?.restores);
    this.removals = column(Int32Array, size, from?.removals);
    this.holders = column(Int32Array, size, from?.holders);
    this.srcMask = column(Int32Array, size, from?.srcMask);
    this.seenMask = column(Int32Array, size, from?.seenMask);
    this.children = column(Int32Array, size, from?.children);
    this.evicted = column(Uint8Array, size, from?.evicted);
    this.prev = column(Int32Array, size, from?.prev);
    this.next = column(Int32Array, size, from?.next);
    this.leaf = column(Uint8Array, size, from?.leaf);
    this.leafPrev = column(Int32Array, size, from?.leafPrev);
    this.leafNext = column(Int32Array, size, from?.leafNext);
    this.gen = column(Int32Array, size, from?.gen);
    this.parentId = column(Int32Array, size, from?.parentId);
    this.parentGen = column(Int32Array, size, from?.parentGen);
    this.slots = column(Int32Array, size, from?.slots);
    this.onlyRemovedAt = column(Float64Array, size, from?.onlyRemovedAt);
    this.secondStoredAt = column(Float64Array, size, from?.secondStoredAt);
    this.secondRemovedAt = column(Float64Array, size, from?.secondRemovedAt);
    this.history = column(Int32Array, size, from?.history);
    this.sid = column(Int32Array, size, from?.sid);
  }

  /** Bytes of its columns: 11 of 8 bytes, 18 of 4 and 3 of 1 per id. */
  bytes(): number {
    return this.size * (11 * 8 + 18 * 4 + 3);
  }
}

/** A column of n values, holding from's first. */
function column<T extends Float64Array | Int32Array | Uint8Array>(
  Ctor: new (n: number) => T,
  n: number,
  from: T | undefined,
): T {
  const c = new Ctor(n);
  if (from !== undefined) c.set(from);
  return c;
}

/** The block fields, in pages of typed columns, with a free list of ids. */
export class NodeTable {
  private capacity = 0;
  /** Ids below this were handed out at least once (see live). */
  issued = 0;
  private readonly free: number[] = [];
  private pages: NodePage[] = [];
  private allocs = 0;
  private readonly parentText = new Map<number, HashKey>();
  private readonly parts: DecimalParts = { hi: 0, lo: 0 };
  private readonly rings = new HistoryRings();

  /** The page of id's fields (read them at id & NODE_MASK). */
  page(id: number): NodePage {
    return this.pages[id >>> PAGE_BITS] as NodePage;
  }

  /** A fresh id for a new block with no parent yet, its other fields zeroed. */
  alloc(ts: number, medium: number, tokens: number): number {
    let id = this.free.pop();
    if (id === undefined) {
      if (this.issued === this.capacity) this.grow();
      id = this.issued;
      this.issued += 1;
    }
    const p = this.page(id);
    const o = id & NODE_MASK;
    p.live[o] = 1;
    p.born[o] = this.allocs;
    this.allocs += 1;
    p.parentHi[o] = NO_PARENT;
    p.firstStored[o] = ts;
    p.lastStore[o] = 0;
    p.lastSeen[o] = ts;
    p.lastLifetime[o] = NaN;
    p.tokens[o] = tokens;
    p.medium[o] = medium;
    p.timesStored[o] = 0;
    p.restores[o] = 0;
    p.removals[o] = 0;
    p.holders[o] = 0;
    p.srcMask[o] = 0;
    p.seenMask[o] = 0;
    p.children[o] = 0;
    p.evicted[o] = 0;
    p.prev[o] = NONE;
    p.next[o] = NONE;
    p.leaf[o] = 0;
    p.gen[o] = (p.gen[o] as number) + 1;
    p.parentId[o] = NONE;
    p.slots[o] = 0;
    p.history[o] = NONE;
    return id;
  }

  /** Gives id back. */
  release(id: number): void {
    const p = this.page(id);
    const o = id & NODE_MASK;
    p.live[o] = 0;
    this.clearParent(p, id);
    p.gen[o] = (p.gen[o] as number) + 1;
    const h = p.history[o] as number;
    if (h !== NONE) this.rings.release(h);
    p.history[o] = NONE;
    this.free.push(id);
  }

  /** Whether id's block names a parent. */
  hasParent(id: number): boolean {
    return this.page(id).parentHi[id & NODE_MASK] !== NO_PARENT;
  }

  /** The parent hash id's block names, null for none. */
  parentKey(id: number): HashKey | null {
    const p = this.page(id);
    const hi = p.parentHi[id & NODE_MASK] as number;
    if (hi === NO_PARENT) return null;
    if (Number.isNaN(hi)) return this.parentText.get(id) as HashKey;
    return decimalKeyText(hi, p.parentLo[id & NODE_MASK] as number);
  }

  /** id's block names parent as its parent. */
  setParent(id: number, parent: HashKey): void {
    const p = this.page(id);
    this.clearParent(p, id);
    if (parseDecimalKey(parent, this.parts)) {
      p.parentHi[id & NODE_MASK] = this.parts.hi;
      p.parentLo[id & NODE_MASK] = this.parts.lo;
    } else {
      p.parentHi[id & NODE_MASK] = NaN;
      this.parentText.set(id, parent);
    }
  }

  /** id's block names as its parent the canonical decimal with these parts (hash-ids.ts). */
  setParentParts(id: number, hi: number, lo: number): void {
    const p = this.page(id);
    this.clearParent(p, id);
    p.parentHi[id & NODE_MASK] = hi;
    p.parentLo[id & NODE_MASK] = lo;
  }

  /** Reads id's parent into out when it is a canonical decimal; false when it is text or none. */
  parentParts(id: number, out: DecimalParts): boolean {
    const p = this.page(id);
    const hi = p.parentHi[id & NODE_MASK] as number;
    if (hi === NO_PARENT || Number.isNaN(hi)) return false;
    out.hi = hi;
    out.lo = p.parentLo[id & NODE_MASK] as number;
    return true;
  }

  /** Bytes of the pages and the history rings (for the memory figures). */
  bytes(): number {
    let n = this.rings.bytes();
    for (const p of this.pages) n += p.bytes();
    return n;
  }

  private clearParent(p: NodePage, id: number): void {
    const o = id & NODE_MASK;
    if (Number.isNaN(p.parentHi[o])) this.parentText.delete(id);
    p.parentHi[o] = NO_PARENT;
  }

  /** Appends a store time to id's history (call after counting the store in timesStored). */
  pushStored(id: number, ts: number): void {
    const p = this.page(id);
    const o = id & NODE_MASK;
    const n = p.timesStored[o] as number;
    if (p.history[o] === NONE) {
      // The first store's time is firstStored's, set as the block was made known.
      if (n === 1) return;
      if (n === 2) {
        p.secondStoredAt[o] = ts;
        return;
      }
    }
    // First: taking a ring may grow (replace) the pool's arrays.
    const h = this.ringOf(p, o, n - 1, p.removals[o] as number);
    this.rings.stored[h * HISTORY_LEN + ((n - 1) % HISTORY_LEN)] = ts;
  }

  /** Appends a removal time to id's history and counts it. */
  pushRemoved(id: number, ts: number): void {
    const p = this.page(id);
    const o = id & NODE_MASK;
    const n = (p.removals[o] as number) + 1;
    p.removals[o] = n;
    if (p.history[o] === NONE) {
      if (n === 1) {
        p.onlyRemovedAt[o] = ts;
        return;
      }
      if (n === 2) {
        p.secondRemovedAt[o] = ts;
        return;
      }
    }
    const h = this.ringOf(p, o, p.timesStored[o] as number, n - 1);
    this.rings.removed[h * HISTORY_LEN + ((n - 1) % HISTORY_LEN)] = ts;
  }

  /** The kept store times of id, oldest first. */
  storeTimes(id: number): number[] {
    const p = this.page(id);
    const o = id & NODE_MASK;
    const n = p.timesStored[o] as number;
    const h = p.history[o] as number;
    if (h === NONE) return firstTwo(p.firstStored, p.secondStoredAt, o, n);
    return ring(this.rings.stored, h, n);
  }

  /** The kept removal times of id, oldest first. */
  removeTimes(id: number): number[] {
    const p = this.page(id);
    const o = id & NODE_MASK;
    const n = p.removals[o] as number;
    const h = p.history[o] as number;
    if (h === NONE) return firstTwo(p.onlyRemovedAt, p.secondRemovedAt, o, n);
    return ring(this.rings.removed, h, n);
  }

  /**
   * The ring in the pool of the block at o of page p, taken on its third store or removal with
   * the times kept so far moved in (`stored` and `removed` of them, two at most each).
   */
  private ringOf(p: NodePage, o: number, stored: number, removed: number): number {
    let h = p.history[o] as number;
    if (h !== NONE) return h;
    h = this.rings.take();
    p.history[o] = h;
    // The first times are the first of each ring: slots 0 and 1, read back in order by ring().
    const at = h * HISTORY_LEN;
    if (stored > 0) this.rings.stored[at] = p.firstStored[o] as number;
    if (stored > 1) this.rings.stored[at + 1] = p.secondStoredAt[o] as number;
    if (removed > 0) this.rings.removed[at] = p.onlyRemovedAt[o] as number;
    if (removed > 1) this.rings.removed[at + 1] = p.secondRemovedAt[o] as number;
    return h;
  }

  /** The first page doubles up to a whole one (a small session stays small), then a page more. */
  private grow(): void {
    if (this.capacity < NODE_PAGE) {
      const size = Math.min(NODE_PAGE, Math.max(INITIAL_CAPACITY, 2 * this.capacity));
      this.pages[0] = new NodePage(size, this.pages[0]);
      this.capacity = size;
      return;
    }
    this.pages.push(new NodePage(NODE_PAGE));
    this.capacity += NODE_PAGE;
  }
}

/** Rings of the last HISTORY_LEN store and removal times, for the blocks that have more than one. */
export class HistoryRings {
  stored = new Float64Array(0);
  removed = new Float64Array(0);
  private capacity = 0;
  private issued = 0;
  private readonly free: number[] = [];

  /** A ring's index (its old times are overwritten before they are read). */
  take(): number {
    const h = this.free.pop();
    if (h !== undefined) return h;
    if (this.issued === this.capacity) {
      this.capacity = Math.max(INITIAL_CAPACITY, this.capacity * 2);
      this.stored = grown(this.stored, this.capacity * HISTORY_LEN);
      this.removed = grown(this.removed, this.capacity * HISTORY_LEN);
    }
    return this.issued++;
  }

  release(h: number): void {
    this.free.push(h);
  }

  bytes(): number {
    return this.stored.byteLength + this.removed.byteLength;
  }
}

/** The times of a block without a ring: none, one or two of them (count), at o of a page. */
function firstTwo(first: Float64Array, second: Float64Array, o: number, count: number): number[] {
  if (count === 0) return [];
  if (count === 1) return [first[o] as number];
  return [first[o] as number, second[o] as number];
}

/** The last min(count, HISTORY_LEN) values of id's ring, oldest first. */
function ring(data: Float64Array, id: number, count: number): number[] {
  const keep = Math.min(count, HISTORY_LEN);
  const out = new Array<number>(keep);
  for (let i = 0; i < keep; i += 1) {
    out[i] = data[id * HISTORY_LEN + ((count - keep + i) % HISTORY_LEN)] as number;
  }
  return out;
}
