// Hot prefixes: per parent hash, its fan-out (distinct first hashes of the BlockStored events
// naming it as parent_block_hash) and how many such events there were. Bounded: past
// MAX_PARENTS the table keeps its top half and says it is no longer exact.
//
// An entry is a small integer id into typed columns, its parent hash found through a HashIds (a
// u64 hash kept as two numbers, no string), and its one first hash kept as two numbers too; only
// a parent with a fan-out of two or more keeps a HashKeySet of first hashes (their parts, no
// strings), and one that several sources named keeps their shares. A Map of an object and two
// strings per parent held about 190 bytes of garbage-collected heap a parent (38 MB at the bound),
// and a stream of new blocks prunes half of them every few seconds: V8 let the heap grow to four
// times that between collections.

import type { HotPrefix } from '../../shared/analysis-report';
import type { HashKey } from '../../shared/events';
import {
  HashIds,
  decimalKeyText,
  parseDecimalKey,
  type DecimalParts,
} from '../collections/hash-ids';
import { grown } from '../collections/grown-column';
import { HashKeySet, type KeyRef } from '../collections/hash-key-set';

/** Parents tracked before the table is pruned. */
export const MAX_PARENTS = 200_000;
/** Distinct first hashes remembered per parent (fan-out keeps counting exactly up to here). */
const MAX_CHILDREN = 100_000;
const FIRST_CAPACITY = 1024;
/** No depth known. */
const NO_DEPTH = -1;

/** What one of several sources naming a parent gave it. */
interface Part {
  events: number;
  children: HashKeySet;
}

/** An entry named by more than one source. */
const SEVERAL = -1;

/** Orders hot prefixes: fan-out, then events (both descending), then the hash as text ascending. */
export function compareHot(
  a: { hash: string; fanOut: number; storeEvents: number },
  b: { hash: string; fanOut: number; storeEvents: number },
): number {
  if (a.fanOut !== b.fanOut) return b.fanOut - a.fanOut;
  if (a.storeEvents !== b.storeEvents) return b.storeEvents - a.storeEvents;
  return a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
}

/** Fan-out and event counts per parent hash. */
export class HotPrefixes {
  /** Parent hash -> entry id (ids are handed out here, the freed reused). */
  private readonly keys = new HashIds();
  private readonly free: number[] = [];
  private next = 0;
  private count = 0;
  private capacity = 0;
  /** 1 for an entry in use. */
  private live = new Uint8Array(0);
  private fanOut = new Int32Array(0);
  private events = new Float64Array(0);
  /** Blocks from the root to the parent as last known, NO_DEPTH for none. */
  private depth = new Int32Array(0);
  private blockSize = new Float64Array(0);
  /** The one source whose events named the parent, or SEVERAL (see parts). */
  private source = new Int32Array(0);
  /**
   * The first hash while the fan-out is 1, as hash-ids.ts reads a decimal: hi, lo (hi NaN: the
   * hash is no decimal and is kept in childText).
   */
  private childHi = new Float64Array(0);
  private childLo = new Float64Array(0);
  private readonly childText = new Map<number, HashKey>();
  /** The first hashes of a parent whose fan-out is 2 or more. */
  private readonly childSets = new Map<number, HashKeySet>();
  /**
   * Entries several sources named: each source's events and first hashes, so that a removed
   * source takes its share out (DESIGN "Faults": a removed source leaves every total). Absent
   * while one source names it, the common case, which keeps no copy.
   */
  private readonly parts = new Map<number, Map<number, Part>>();
  private readonly parsed: DecimalParts = { hi: 0, lo: 0 };
  exact = true;

  /** maxParents: the bound (tests use a small one). */
  constructor(private readonly maxParents = MAX_PARENTS) {}

  /** Parents tracked now. */
  get size(): number {
    return this.count;
  }

  /**
   * A BlockStored event naming parent, whose first hash is first (undefined: no hashes); either as
   * its text or its decimal's parts, read before the next call.
   */
  add(
    parent: KeyRef,
    first: KeyRef | undefined,
    depthBlocks: number | null,
    blockSize: number,
    source: number,
  ): void {
    let id =
      typeof parent === 'string'
        ? this.keys.find(parent)
        : this.keys.findParts(parent.hi, parent.lo);
    if (id < 0) {
      if (this.count >= this.maxParents) this.prune();
      id = this.newEntry(parent, blockSize, source);
    } else if (this.source[id] !== source && this.source[id] !== SEVERAL) {
      // A second source names it: from here on each one's share is kept apart.
      const own = this.source[id] as number;
      const part = { events: this.events[id] as number, children: this.childSetOf(id) };
      this.parts.set(id, new Map([[own, part]]));
      this.source[id] = SEVERAL;
    }
    this.events[id] = (this.events[id] as number) + 1;
    if (depthBlocks !== null) {
      this.depth[id] = depthBlocks;
      this.blockSize[id] = blockSize;
    }
    if (this.source[id] === SEVERAL) {
      const parts = this.parts.get(id) as Map<number, Part>;
      let part = parts.get(source);
      if (part === undefined) {
        part = { events: 0, children: new HashKeySet() };
        parts.set(source, part);
      }
      part.events += 1;
      if (first !== undefined && part.children.size < MAX_CHILDREN) part.children.add(first);
    }
    if (first === undefined) return;
    const fanOut = this.fanOut[id] as number;
    if (fanOut === 0) this.setOneChild(id, first);
    else if (fanOut === 1) {
      if (!this.isOneChild(id, first)) {
        this.childSets.set(id, new HashKeySet([this.oneChildText(id), first]));
        this.fanOut[id] = 2;
      }
    } else {
      const set = this.childSets.get(id) as HashKeySet;
      // One look-up for the common case (room left): add() says whether the hash was new.
      if (set.size < MAX_CHILDREN) {
        if (set.add(first)) this.fanOut[id] = set.size;
      } else if (!set.has(first)) this.exact = false;
    }
  }

  /**
   * A removed source leaves: the parents it alone named go, and one that several named keeps
   * only the others' events and first hashes (its fan-out counted again over theirs).
   */
  dropSource(source: number): void {
    for (let id = 0; id < this.next; id += 1) {
      if (this.live[id] !== 1) continue;
      if (this.source[id] === source) this.deleteEntry(id);
      else if (this.source[id] === SEVERAL) this.dropPart(id, source);
    }
  }

  /** The top n, ranked by compareHot (one pass, keeping the best n in order). */
  top(n: number): HotPrefix[] {
    if (n <= 0) return [];
    const best: number[] = [];
    for (let id = 0; id < this.next; id += 1) {
      if (this.live[id] !== 1) continue;
      if (best.length >= n && this.compare(id, best[best.length - 1] as number) >= 0) continue;
      let i = best.length;
      while (i > 0 && this.compare(id, best[i - 1] as number) < 0) i -= 1;
      best.splice(i, 0, id);
      if (best.length > n) best.pop();
    }
    return best.map((id) => this.row(id));
  }

  /** Bytes of the typed columns and the key table (for the memory figures). */
  bytes(): number {
    return (
      this.keys.bytes() + this.capacity * (1 + 4 + 8 + 4 + 8 + 4 + 8 + 8) + 8 * this.free.length
    );
  }

  private row(id: number): HotPrefix {
    const depth = this.depth[id] as number;
    return {
      hash: this.keys.keyOf(id),
      fanOut: this.fanOut[id] as number,
      storeEvents: this.events[id] as number,
      depthBlocks: depth === NO_DEPTH ? null : depth,
      depthTokens: depth === NO_DEPTH ? null : depth * (this.blockSize[id] as number),
    };
  }

  /** compareHot of two entries, without making their rows (nor their hashes' texts). */
  private compare(a: number, b: number): number {
    const fa = this.fanOut[a] as number;
    const fb = this.fanOut[b] as number;
    if (fa !== fb) return fb - fa;
    const ea = this.events[a] as number;
    const eb = this.events[b] as number;
    if (ea !== eb) return eb - ea;
    return this.keys.compareKeys(a, b);
  }

  /**
   * Keeps the better half (by compareHot), so the table stays bounded; counts of what returns
   * start again. A selection, not a sort: the half kept needs no order.
   */
  private prune(): void {
    this.exact = false;
    const ids = new Int32Array(this.count);
    let n = 0;
    for (let id = 0; id < this.next; id += 1) if (this.live[id] === 1) ids[n++] = id;
    const keep = Math.floor(this.maxParents / 2);
    selectBest(ids, keep, (a, b) => this.compare(a, b));
    for (let i = keep; i < n; i += 1) this.deleteEntry(ids[i] as number);
  }

  private newEntry(parent: KeyRef, blockSize: number, source: number): number {
    const id = this.free.pop() ?? this.next++;
    if (id >= this.capacity) this.grow();
    if (typeof parent === 'string') this.keys.set(parent, id);
    else this.keys.setParts(parent.hi, parent.lo, id);
    this.live[id] = 1;
    this.fanOut[id] = 0;
    this.events[id] = 0;
    this.depth[id] = NO_DEPTH;
    this.blockSize[id] = blockSize;
    this.source[id] = source;
    this.count += 1;
    return id;
  }

  private deleteEntry(id: number): void {
    this.keys.delete(id);
    this.live[id] = 0;
    this.dropChildren(id);
    if (this.source[id] === SEVERAL) this.parts.delete(id);
    this.free.push(id);
    this.count -= 1;
  }

  /** The entry's first hashes become exactly `set` (fan-out 0, 1 or more). */
  private setChildren(id: number, set: HashKeySet): void {
    this.dropChildren(id);
    this.fanOut[id] = 0;
    if (set.size === 1) this.setOneChild(id, [...set][0] as HashKey);
    else if (set.size > 1) {
      this.childSets.set(id, set);
      this.fanOut[id] = set.size;
    }
  }

  /** Frees what holds the entry's first hashes outside its columns (a set, or a hash as text). */
  private dropChildren(id: number): void {
    const fanOut = this.fanOut[id] as number;
    if (fanOut >= 2) this.childSets.delete(id);
    else if (fanOut === 1 && Number.isNaN(this.childHi[id])) this.childText.delete(id);
  }

  private setOneChild(id: number, first: KeyRef): void {
    const parts = this.partsOf(first);
    if (parts !== null) {
      this.childHi[id] = parts.hi;
      this.childLo[id] = parts.lo;
    } else {
      this.childHi[id] = NaN;
      this.childText.set(id, first as HashKey);
    }
    this.fanOut[id] = 1;
  }

  private isOneChild(id: number, hash: KeyRef): boolean {
    const hi = this.childHi[id] as number;
    const parts = this.partsOf(hash);
    if (Number.isNaN(hi)) return parts === null && this.childText.get(id) === hash;
    return parts !== null && parts.hi === hi && parts.lo === this.childLo[id];
  }

  /** A key's decimal parts, or null when it is a text that is no canonical decimal. */
  private partsOf(key: KeyRef): DecimalParts | null {
    if (typeof key !== 'string') return key;
    return parseDecimalKey(key, this.parsed) ? this.parsed : null;
  }

  private oneChildText(id: number): HashKey {
    const hi = this.childHi[id] as number;
    if (Number.isNaN(hi)) return this.childText.get(id) as HashKey;
    return decimalKeyText(hi, this.childLo[id] as number);
  }

  /** The entry's first hashes as a new set (its own may grow on). */
  private childSetOf(id: number): HashKeySet {
    const fanOut = this.fanOut[id] as number;
    if (fanOut === 0) return new HashKeySet();
    if (fanOut === 1) return new HashKeySet([this.oneChildText(id)]);
    return new HashKeySet(this.childSets.get(id));
  }

  /** Takes `source`'s share out of an entry several sources named. */
  private dropPart(id: number, source: number): void {
    const parts = this.parts.get(id) as Map<number, Part>;
    const gone = parts.get(source);
    if (gone === undefined) return;
    parts.delete(source);
    this.events[id] = (this.events[id] as number) - gone.events;
    const union = new HashKeySet();
    for (const p of parts.values()) for (const h of p.children) union.add(h);
    this.setChildren(id, union);
    if (parts.size === 1) {
      // One source left: the entry is its own again, as if the other had never named it.
      const [only] = parts.keys();
      this.source[id] = only as number;
      this.parts.delete(id);
    }
  }

  private grow(): void {
    const cap = Math.min(Math.max(FIRST_CAPACITY, 2 * this.capacity), this.maxParents);
    this.live = grown(this.live, cap);
    this.fanOut = grown(this.fanOut, cap);
    this.events = grown(this.events, cap);
    this.depth = grown(this.depth, cap);
    this.blockSize = grown(this.blockSize, cap);
    this.source = grown(this.source, cap);
    this.childHi = grown(this.childHi, cap);
    this.childLo = grown(this.childLo, cap);
    this.capacity = cap;
  }
}

/**
 * Rearranges ids so that its first k are the k smallest by cmp (a total order), in no particular
 * order: quickselect with a median-of-three pivot.
 */
function selectBest(ids: Int32Array, k: number, cmp: (a: number, b: number) => number): void {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo < hi && k > lo && k <= hi) {
    const mid = lo + ((hi - lo) >>> 1);
    // Median of three at mid, the low one at lo, the high one at hi.
    if (cmp(ids[mid] as number, ids[lo] as number) < 0) swap(ids, mid, lo);
    if (cmp(ids[hi] as number, ids[lo] as number) < 0) swap(ids, hi, lo);
    if (cmp(ids[hi] as number, ids[mid] as number) < 0) swap(ids, hi, mid);
    const pivot = ids[mid] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (cmp(ids[i] as number, pivot) < 0) i += 1;
      while (cmp(ids[j] as number, pivot) > 0) j -= 1;
      if (i <= j) {
        swap(ids, i, j);
        i += 1;
        j -= 1;
      }
    }
    // [lo, j] <= pivot <= [i, hi]; what lies between equals the pivot.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}
