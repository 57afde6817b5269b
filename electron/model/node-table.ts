// The fields of every known block, one typed column per field, indexed by a small integer id that
// is reused once the block is forgotten. Why not an object per block: a session replays millions
// of stores through the 200,000 evicted blocks the forest keeps, and an object (with its history
// arrays) per block lived just long enough to be promoted before it died, so V8 grew the heap to
// four times the live size between major collections. Columns are a few large allocations that
// are rewritten in place: a store or a removal allocates nothing. A block's hash is not kept here
// as text: it is its sid's in the forest's SharedHashIds, and its parent's is kept as the two
// numbers of a decimal hash (a string per block and per parent were 10 MB of the service's heap at
// 250,000 known blocks, and garbage that reached the old generation as blocks were forgotten).

import type { HashKey } from '../../shared/events';
import { decimalKeyText, parseDecimalKey, type DecimalParts } from '../collections/hash-ids';
import { HISTORY_LEN } from './block-node';

/** No node: an empty link, an unknown parent, a block with no medium. */
export const NONE = -1;

const INITIAL_CAPACITY = 1024;
/** parentHi of a block with no parent; NaN: a parent that is no decimal (kept in parentText). */
const NO_PARENT = -1;

/** Typed columns of block fields with a free list of ids. */
export class NodeTable {
  private capacity = 0;
  /** Ids below this were handed out at least once (see live). */
  issued = 0;
  private readonly free: number[] = [];

  /** 1 for an id that names a known block, 0 for a free one. */
  live = new Uint8Array(0);
  /** The order in which the known blocks became known (a count of allocs). */
  born = new Float64Array(0);
  private allocs = 0;
  /**
   * The parent hash as last stored (it may name a block that is not known): a canonical decimal's
   * parts (hash-ids.ts), NO_PARENT hi for none, NaN hi for a parent kept as text in parentText.
   */
  parentHi = new Float64Array(0);
  parentLo = new Float64Array(0);
  private readonly parentText = new Map<number, HashKey>();
  private readonly parts: DecimalParts = { hi: 0, lo: 0 };
  firstStored = new Float64Array(0);
  lastStore = new Float64Array(0);
  lastSeen = new Float64Array(0);
  /** NaN while the block has no lifetime (never evicted, or let go without an eviction). */
  lastLifetime = new Float64Array(0);
  tokens = new Float64Array(0);
  /** Index into the forest's media, NONE for none. */
  medium = new Int32Array(0);
  timesStored = new Int32Array(0);
  /** Stores while known but resident nowhere (re-stores after eviction). */
  restores = new Int32Array(0);
  /** Times the block became resident nowhere (the count behind removedAt). */
  removals = new Int32Array(0);
  /** (source, medium) pairs holding the block now. */
  holders = new Int32Array(0);
  /** Bit i: source i holds it now / ever stored it (sources 0..30). */
  srcMask = new Int32Array(0);
  seenMask = new Int32Array(0);
  /** Known blocks naming this one as their parent. */
  children = new Int32Array(0);
  /** 1 while the block is in the forest's evicted list. */
  evicted = new Uint8Array(0);
  /** The evicted list's links (older, newer). */
  prev = new Int32Array(0);
  next = new Int32Array(0);
  /** 1 while the block is a leaf (no known child); leafPrev / leafNext link the leaves in order. */
  leaf = new Uint8Array(0);
  leafPrev = new Int32Array(0);
  leafNext = new Int32Array(0);
  /** Bumped whenever an id is handed out or given back: (id, gen) names one life of an id. */
  gen = new Int32Array(0);
  /**
   * The parent's id and gen when it was last found: a look-up by hash is then needed only once
   * that life ended (the parent forgotten, perhaps stored again under a new id). NONE: not found.
   */
  parentId = new Int32Array(0);
  parentGen = new Int32Array(0);
  /** Bit s: resident-set slot s (a source and medium, see resident-id-slot.ts) holds the block. */
  slots = new Int32Array(0);
  /**
   * The store and removal times while there are two of each at most: most blocks are stored once
   * or twice (a GPU store, then its offload to CPU) and removed once or twice, so the rings below
   * are taken only by a third store or removal (4 columns of 8 bytes instead of 128 bytes per
   * block: 8 M resident blocks kept 1 GB of rings, and the 200,000 evicted blocks of a stream
   * offloaded to CPU kept 32 MB).
   */
  onlyStoredAt = new Float64Array(0);
  onlyRemovedAt = new Float64Array(0);
  secondStoredAt = new Float64Array(0);
  secondRemovedAt = new Float64Array(0);
  /** Index of id's history in the pool below, NONE while it has none. */
  history = new Int32Array(0);
  private readonly rings = new HistoryRings();
  /** The id of the block's hash in the forest's SharedHashIds. */
  sid = new Int32Array(0);

  /** A fresh id for a new block with no parent yet, its other fields zeroed. */
  alloc(ts: number, medium: number, tokens: number): number {
    let id = this.free.pop();
    if (id === undefined) {
      if (this.issued === this.capacity) this.grow();
      id = this.issued;
      this.issued += 1;
    }
    this.live[id] = 1;
    this.born[id] = this.allocs;
    this.allocs += 1;
    this.parentHi[id] = NO_PARENT;
    this.firstStored[id] = ts;
    this.lastStore[id] = 0;
    this.lastSeen[id] = ts;
    this.lastLifetime[id] = NaN;
    this.tokens[id] = tokens;
    this.medium[id] = medium;
    this.timesStored[id] = 0;
    this.restores[id] = 0;
    this.removals[id] = 0;
    this.holders[id] = 0;
    this.srcMask[id] = 0;
    this.seenMask[id] = 0;
    this.children[id] = 0;
    this.evicted[id] = 0;
    this.prev[id] = NONE;
    this.next[id] = NONE;
    this.leaf[id] = 0;
    this.gen[id] = (this.gen[id] as number) + 1;
    this.parentId[id] = NONE;
    this.slots[id] = 0;
    this.history[id] = NONE;
    return id;
  }

  /** Gives id back. */
  release(id: number): void {
    this.live[id] = 0;
    this.clearParent(id);
    this.gen[id] = (this.gen[id] as number) + 1;
    const h = this.history[id] as number;
    if (h !== NONE) this.rings.release(h);
    this.history[id] = NONE;
    this.free.push(id);
  }

  /** Whether id's block names a parent. */
  hasParent(id: number): boolean {
    return this.parentHi[id] !== NO_PARENT;
  }

  /** The parent hash id's block names, null for none. */
  parentKey(id: number): HashKey | null {
    const hi = this.parentHi[id] as number;
    if (hi === NO_PARENT) return null;
    if (Number.isNaN(hi)) return this.parentText.get(id) as HashKey;
    return decimalKeyText(hi, this.parentLo[id] as number);
  }

  /** id's block names parent as its parent. */
  setParent(id: number, parent: HashKey): void {
    this.clearParent(id);
    if (parseDecimalKey(parent, this.parts)) {
      this.parentHi[id] = this.parts.hi;
      this.parentLo[id] = this.parts.lo;
    } else {
      this.parentHi[id] = NaN;
      this.parentText.set(id, parent);
    }
  }

  /** id's block names as its parent the canonical decimal with these parts (hash-ids.ts). */
  setParentParts(id: number, hi: number, lo: number): void {
    this.clearParent(id);
    this.parentHi[id] = hi;
    this.parentLo[id] = lo;
  }

  /** Reads id's parent into out when it is a canonical decimal; false when it is text or none. */
  parentParts(id: number, out: DecimalParts): boolean {
    const hi = this.parentHi[id] as number;
    if (hi === NO_PARENT || Number.isNaN(hi)) return false;
    out.hi = hi;
    out.lo = this.parentLo[id] as number;
    return true;
  }

  /** Bytes of the columns and the history rings (for the memory figures). */
  bytes(): number {
    // 12 columns of 8 bytes, 18 of 4 and 3 of 1 per id.
    return this.capacity * (12 * 8 + 18 * 4 + 3) + this.rings.bytes();
  }

  private clearParent(id: number): void {
    if (Number.isNaN(this.parentHi[id])) this.parentText.delete(id);
    this.parentHi[id] = NO_PARENT;
  }

  /** Appends a store time to id's history (call after counting the store in timesStored). */
  pushStored(id: number, ts: number): void {
    const n = this.timesStored[id] as number;
    if (this.history[id] === NONE) {
      if (n === 1) {
        this.onlyStoredAt[id] = ts;
        return;
      }
      if (n === 2) {
        this.secondStoredAt[id] = ts;
        return;
      }
    }
    // First: taking a ring may grow (replace) the pool's arrays.
    const h = this.ringOf(id, n - 1, this.removals[id] as number);
    this.rings.stored[h * HISTORY_LEN + ((n - 1) % HISTORY_LEN)] = ts;
  }

  /** Appends a removal time to id's history and counts it. */
  pushRemoved(id: number, ts: number): void {
    const n = (this.removals[id] as number) + 1;
    this.removals[id] = n;
    if (this.history[id] === NONE) {
      if (n === 1) {
        this.onlyRemovedAt[id] = ts;
        return;
      }
      if (n === 2) {
        this.secondRemovedAt[id] = ts;
        return;
      }
    }
    const h = this.ringOf(id, this.timesStored[id] as number, n - 1);
    this.rings.removed[h * HISTORY_LEN + ((n - 1) % HISTORY_LEN)] = ts;
  }

  /** The kept store times of id, oldest first. */
  storeTimes(id: number): number[] {
    const n = this.timesStored[id] as number;
    const h = this.history[id] as number;
    if (h === NONE) return firstTwo(this.onlyStoredAt, this.secondStoredAt, id, n);
    return ring(this.rings.stored, h, n);
  }

  /** The kept removal times of id, oldest first. */
  removeTimes(id: number): number[] {
    const n = this.removals[id] as number;
    const h = this.history[id] as number;
    if (h === NONE) return firstTwo(this.onlyRemovedAt, this.secondRemovedAt, id, n);
    return ring(this.rings.removed, h, n);
  }

  /**
   * id's ring in the pool, taken on its third store or removal with the times kept so far moved in
   * (`stored` and `removed` of them, two at most each).
   */
  private ringOf(id: number, stored: number, removed: number): number {
    let h = this.history[id] as number;
    if (h !== NONE) return h;
    h = this.rings.take();
    this.history[id] = h;
    // The first times are the first of each ring: slots 0 and 1, read back in order by ring().
    const at = h * HISTORY_LEN;
    if (stored > 0) this.rings.stored[at] = this.onlyStoredAt[id] as number;
    if (stored > 1) this.rings.stored[at + 1] = this.secondStoredAt[id] as number;
    if (removed > 0) this.rings.removed[at] = this.onlyRemovedAt[id] as number;
    if (removed > 1) this.rings.removed[at + 1] = this.secondRemovedAt[id] as number;
    return h;
  }

  private grow(): void {
    const cap = Math.max(INITIAL_CAPACITY, this.capacity * 2);
    this.live = grown(this.live, cap);
    this.born = grown(this.born, cap);
    this.parentHi = grown(this.parentHi, cap);
    this.parentLo = grown(this.parentLo, cap);
    this.firstStored = grown(this.firstStored, cap);
    this.lastStore = grown(this.lastStore, cap);
    this.lastSeen = grown(this.lastSeen, cap);
    this.lastLifetime = grown(this.lastLifetime, cap);
    this.tokens = grown(this.tokens, cap);
    this.medium = grown(this.medium, cap);
    this.timesStored = grown(this.timesStored, cap);
    this.restores = grown(this.restores, cap);
    this.removals = grown(this.removals, cap);
    this.holders = grown(this.holders, cap);
    this.srcMask = grown(this.srcMask, cap);
    this.seenMask = grown(this.seenMask, cap);
    this.children = grown(this.children, cap);
    this.evicted = grown(this.evicted, cap);
    this.prev = grown(this.prev, cap);
    this.next = grown(this.next, cap);
    this.leaf = grown(this.leaf, cap);
    this.leafPrev = grown(this.leafPrev, cap);
    this.leafNext = grown(this.leafNext, cap);
    this.gen = grown(this.gen, cap);
    this.parentId = grown(this.parentId, cap);
    this.parentGen = grown(this.parentGen, cap);
    this.slots = grown(this.slots, cap);
    this.onlyStoredAt = grown(this.onlyStoredAt, cap);
    this.onlyRemovedAt = grown(this.onlyRemovedAt, cap);
    this.secondStoredAt = grown(this.secondStoredAt, cap);
    this.secondRemovedAt = grown(this.secondRemovedAt, cap);
    this.history = grown(this.history, cap);
    this.sid = grown(this.sid, cap);
    this.capacity = cap;
  }
}

/** Rings of the last HISTORY_LEN store and removal times, for the blocks that have more than one. */
class HistoryRings {
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

type Column = Float64Array | Int32Array | Uint8Array;

/** A column of length n holding a's values first. */
function grown<T extends Column>(a: T, n: number): T {
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
}

/** The times of a block without a ring: none, one or two of them (count). */
function firstTwo(first: Float64Array, second: Float64Array, id: number, count: number): number[] {
  if (count === 0) return [];
  if (count === 1) return [first[id] as number];
  return [first[id] as number, second[id] as number];
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
