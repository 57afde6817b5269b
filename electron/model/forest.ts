// The hash forest: every stored block linked to its parent. Leaves (blocks with no known child)
// are kept incrementally, one chain per leaf. Blocks resident nowhere are remembered in LRU order
// up to a cap, so re-stores and lifetimes can be measured while memory stays bounded.
// A block is a small integer id into typed columns (node-table.ts); the shared id table
// (SharedHashIds: a canonical decimal hash is found as two numbers, with no string compared; the
// analysis interns through the same table) is the forest's one lookup by hash text, so a block's
// store costs one look-up, none when the caller looked the batch up already (BatchIds), and the
// leaves, the resident sets and the evicted list hold ids. A block also keeps its parent's id
// (checked by the id's gen), so unlinking it from its parent needs no look-up while the parent lives.

import type { HashKey } from '../../shared/events';
import type { DecimalParts } from '../collections/hash-ids';
import { NO_ID, SharedHashIds } from '../collections/shared-hash-ids';
import { sourceBit, type BlockNode } from './block-node';
import { appendId, detachId, emptyIdList } from './id-list';
import { NodeTable, NONE } from './node-table';
import { OrphanCounts } from './orphan-counts';

/** Blocks resident nowhere that stay known (oldest forgotten first). */
export const DEFAULT_EVICTED_CAP = 200_000;

/** Known blocks, their links, and the leaf set. */
export class Forest {
  /** The fields of every known block, by id. */
  readonly table = new NodeTable();
  private known = 0;
  /**
   * Children of parents that are not known blocks (a parent never stored, or forgotten), so that
   * counts survive forgetting; a known block counts its own (table.children).
   */
  private readonly orphanChildren = new OrphanCounts();
  /**
   * The known blocks with no known child, in the order they became leaves, linked through
   * table.leafPrev / leafNext: a Set of ids cost a hash-table operation (a cache miss on a large
   * forest) per new block and per forgotten one.
   */
  private readonly leafList = emptyIdList();
  /** The evicted list, a doubly linked list through table.prev / table.next: oldest first. */
  private readonly evictedList = emptyIdList();
  private evictedCount = 0;
  private readonly mediaNames: string[] = [];
  private readonly mediaIds = new Map<string, number>();
  private readonly parts: DecimalParts = { hi: 0, lo: 0 };
  /** Bumped on every change, so query results can be cached. */
  version = 0;
  forgotten = 0;

  /**
   * ids: the id table by hash, shared with the analysis when both are fed together (the forest's
   * ids are its own, found through the table's sid).
   */
  constructor(
    private readonly evictedCap = DEFAULT_EVICTED_CAP,
    private readonly ids = new SharedHashIds(),
  ) {}

  /** Known blocks. */
  get size(): number {
    return this.known;
  }

  /** Every known block's hash and id, in id order. */
  *entries(): IterableIterator<[HashKey, number]> {
    const t = this.table;
    for (let id = 0; id < t.issued; id += 1) if (t.live[id] === 1) yield [this.hashOf(id), id];
  }

  /** The hash of the known block with this id (made from its sid's parts: no string per block). */
  hashOf(id: number): HashKey {
    return this.ids.keyOf(this.table.sid[id] as number);
  }

  /** Bytes of the forest's columns (for the memory figures). */
  bytes(): number {
    return this.table.bytes() + this.orphanChildren.bytes();
  }

  /** Ids of the known blocks with no known child, in the order they became leaves. */
  *leaves(): IterableIterator<number> {
    const t = this.table;
    for (let id = this.leafList.head; id !== NONE; id = t.leafNext[id] as number) yield id;
  }

  /** Known children of hash. */
  children(hash: HashKey): number {
    const id = this.idOf(hash);
    return id === NONE ? this.orphanChildren.get(hash) : (this.table.children[id] ?? 0);
  }

  /** The id of a known block, NONE when it is not known. */
  idOf(hash: HashKey): number {
    const sid = this.ids.find(hash);
    return sid === NO_ID ? NONE : this.ids.forestId(sid);
  }

  /** The id of the known block whose hash has the shared id sid, NONE when it is not known. */
  idOfSid(sid: number): number {
    return this.ids.forestId(sid);
  }

  /** The id standing for a medium name in the table (NONE for none): taken once per event. */
  mediumId(medium: string | null): number {
    if (medium === null) return NONE;
    let id = this.mediaIds.get(medium);
    if (id === undefined) {
      id = this.mediaNames.length;
      this.mediaNames.push(medium);
      this.mediaIds.set(medium, id);
    }
    return id;
  }

  /** A copy of a known block's fields. */
  get(hash: HashKey): BlockNode | undefined {
    const id = this.idOf(hash);
    return id === NONE ? undefined : this.view(id);
  }

  /** A copy of the fields of the block with this id. */
  view(id: number): BlockNode {
    const t = this.table;
    const medium = t.medium[id] as number;
    const lifetime = t.lastLifetime[id] as number;
    return {
      hash: this.hashOf(id),
      parent: t.parentKey(id),
      firstStored: t.firstStored[id] as number,
      medium: medium === NONE ? null : (this.mediaNames[medium] as string),
      tokens: t.tokens[id] as number,
      timesStored: t.timesStored[id] as number,
      restores: t.restores[id] as number,
      storedAt: t.storeTimes(id),
      removedAt: t.removeTimes(id),
      lastStore: t.lastStore[id] as number,
      lastSeen: t.lastSeen[id] as number,
      lastLifetime: Number.isNaN(lifetime) ? null : lifetime,
      holders: t.holders[id] as number,
      srcMask: t.srcMask[id] as number,
      seenMask: t.seenMask[id] as number,
      children: t.children[id] as number,
    };
  }

  /**
   * Record a store of hash under parent and return its id. `medium` is a mediumId; `prev` is the id
   * stored just before in the same event (whose hash is parent), which spares looking it up again;
   * `chain` is false for an offload tier's store (storeIsChain), which moves a block, never
   * recomputes it. `sid`: hash's shared id when the caller looked it up (BatchIds).
   */
  store(
    hash: HashKey,
    parent: HashKey | null,
    ts: number,
    medium: number,
    tokens: number,
    prev = NONE,
    chain = true,
    sid = NO_ID,
  ): number {
    this.version += 1;
    if (parent === hash) parent = null;
    const t = this.table;
    const s = sid === NO_ID ? this.ids.intern(hash) : sid;
    let id = this.ids.forestId(s);
    if (id === NONE) {
      id = t.alloc(ts, medium, tokens);
      t.sid[id] = s;
      this.ids.setForestId(s, id);
      this.known += 1;
      if (this.orphanChildren.size > 0) t.children[id] = this.orphanChildren.take(hash);
      if (t.children[id] === 0) this.addLeaf(id);
      // Only a block that took children back can close a cycle through its new parent.
      if (parent !== null && (t.children[id] === 0 || !this.descends(parent, id)))
        this.link(id, parent, prev);
    } else {
      // Recomputed: stored again while no (source, medium) held it. A GPU eviction followed by
      // its offload to CPU is a move, not a recompute.
      if (chain && t.holders[id] === 0) t.restores[id] = (t.restores[id] as number) + 1;
      // A block hash names its whole prefix, so a known parent never changes: a store naming
      // another one (an offload tier's, a collision) does not re-parent the block. A parent not
      // known yet is learnt, unless it descends from the block (that would close a cycle).
      if (
        parent !== null &&
        !t.hasParent(id) &&
        (t.children[id] === 0 || !this.descends(parent, id))
      )
        this.link(id, parent, prev);
      if (medium !== NONE) t.medium[id] = medium;
      if (tokens > 0) t.tokens[id] = tokens;
    }
    t.timesStored[id] = (t.timesStored[id] as number) + 1;
    t.lastStore[id] = ts;
    t.lastSeen[id] = Math.max(t.lastSeen[id] as number, ts);
    t.pushStored(id, ts);
    return id;
  }

  /** A (source, medium) pair now holds the block. */
  addHolder(id: number, sourceIdx: number): void {
    this.version += 1;
    const t = this.table;
    if (t.evicted[id] === 1) this.unlist(id);
    t.holders[id] = (t.holders[id] as number) + 1;
    t.srcMask[id] = (t.srcMask[id] as number) | sourceBit(sourceIdx);
    t.seenMask[id] = (t.seenMask[id] as number) | sourceBit(sourceIdx);
  }

  /**
   * A (source, medium) pair let the block go at ts; stillInSource when the source holds it in
   * another medium. `evicted` is false when the holder went away (an engine restart, a removed
   * source): that ends no lifetime.
   */
  removeHolder(
    id: number,
    sourceIdx: number,
    stillInSource: boolean,
    ts: number,
    evicted = true,
  ): void {
    this.version += 1;
    const t = this.table;
    const holders = Math.max(0, (t.holders[id] as number) - 1);
    t.holders[id] = holders;
    if (!stillInSource) t.srcMask[id] = (t.srcMask[id] as number) & ~sourceBit(sourceIdx);
    t.lastSeen[id] = Math.max(t.lastSeen[id] as number, ts);
    if (holders === 0) {
      t.pushRemoved(id, ts);
      // A removal before its store (the clock stepped back) ends no lifetime either.
      const stored = t.lastStore[id] as number;
      t.lastLifetime[id] = evicted && ts >= stored ? ts - stored : NaN;
      this.list(id);
      this.trim();
    }
  }

  /** Root-first ids from the top-most known ancestor to hash (cycle-safe). */
  path(hash: HashKey): number[] {
    const out: number[] = [];
    const seen = new Set<number>();
    let cur = this.idOf(hash);
    while (cur !== NONE && !seen.has(cur)) {
      seen.add(cur);
      out.push(cur);
      cur = this.parentOf(cur);
    }
    return out.reverse();
  }

  /** The id of the known block that is id's parent, NONE when it has none or it is not known. */
  parentOf(id: number): number {
    const t = this.table;
    if (!t.hasParent(id)) return NONE;
    const known = t.parentId[id] as number;
    if (known !== NONE && t.gen[known] === t.parentGen[id]) return known;
    // That life of the parent ended (or it was never found): look it up by hash, and keep it.
    const parts = this.parts;
    const sid = t.parentParts(id, parts)
      ? this.ids.findParts(parts.hi, parts.lo)
      : this.ids.find(t.parentKey(id) as HashKey);
    const found = sid === NO_ID ? NONE : this.ids.forestId(sid);
    t.parentId[id] = found;
    if (found !== NONE) t.parentGen[id] = t.gen[found] as number;
    return found;
  }

  /**
   * Whether the known chain above hash (hash included) reaches block id. O(depth), taken only when
   * id has children, which is rare on a new store (its children came first) and on a re-store
   * that names a parent for the first time. The forest has no cycle, so the walk ends.
   */
  private descends(hash: HashKey, id: number): boolean {
    let cur = this.idOf(hash);
    while (cur !== NONE) {
      if (cur === id) return true;
      cur = this.parentOf(cur);
    }
    return false;
  }

  /** Forget the oldest blocks resident nowhere beyond the cap. */
  private trim(): void {
    const list = this.evictedList;
    while (this.evictedCount > this.evictedCap && list.head !== NONE) this.forget(list.head);
  }

  /** Puts id at the newest end of the evicted list (moving it when it is there already). */
  private list(id: number): void {
    const t = this.table;
    if (t.evicted[id] === 1) this.unlist(id);
    t.evicted[id] = 1;
    appendId(t.prev, t.next, this.evictedList, id);
    this.evictedCount += 1;
  }

  private unlist(id: number): void {
    const t = this.table;
    detachId(t.prev, t.next, this.evictedList, id);
    t.evicted[id] = 0;
    this.evictedCount -= 1;
  }

  private forget(id: number): void {
    const t = this.table;
    const children = t.children[id] as number;
    // Children that outlive it count under it as orphans (by its hash's parts: no string made).
    if (children > 0) {
      const sid = t.sid[id] as number;
      if (this.ids.keyParts(sid, this.parts))
        this.orphanChildren.addParts(this.parts.hi, this.parts.lo, children);
      else this.orphanChildren.add(this.ids.keyOf(sid), children);
    }
    this.unlist(id);
    this.ids.setForestId(t.sid[id] as number, NONE);
    this.known -= 1;
    this.removeLeaf(id);
    if (t.hasParent(id)) this.unlink(id);
    t.release(id);

    this.forgotten += 1;
    this.version += 1;
  }

  /** Links id under parent (one more child of it); `known` is parent's id when the caller has it. */
  private link(id: number, parent: HashKey, known: number): void {
    const t = this.table;
    const p = known !== NONE ? known : this.idOf(parent);
    t.parentId[id] = p;
    // A known parent's hash is read from its sid's parts, not parsed again from the text.
    if (p !== NONE && this.ids.keyParts(t.sid[p] as number, this.parts))
      t.setParentParts(id, this.parts.hi, this.parts.lo);
    else t.setParent(id, parent);
    if (p !== NONE) {
      const n = t.children[p] as number;
      if (n === 0) this.removeLeaf(p);
      t.children[p] = n + 1;
      t.parentGen[id] = t.gen[p] as number;
      return;
    }
    this.orphanChildren.add(parent, 1);
  }

  /** One child fewer for id's parent (id's parent hash is not null). */
  private unlink(id: number): void {
    const t = this.table;
    const p = this.parentOf(id);
    if (p !== NONE) {
      const n = Math.max(0, (t.children[p] as number) - 1);
      t.children[p] = n;
      if (n === 0) this.addLeaf(p);
      return;
    }
    if (t.parentParts(id, this.parts))
      this.orphanChildren.addParts(this.parts.hi, this.parts.lo, -1);
    else this.orphanChildren.add(t.parentKey(id) as HashKey, -1);
  }

  /** Appends id to the leaves unless it is one (a Set's add: a leaf keeps its place). */
  private addLeaf(id: number): void {
    const t = this.table;
    if (t.leaf[id] === 1) return;
    t.leaf[id] = 1;
    appendId(t.leafPrev, t.leafNext, this.leafList, id);
  }

  private removeLeaf(id: number): void {
    const t = this.table;
    if (t.leaf[id] === 0) return;
    t.leaf[id] = 0;
    detachId(t.leafPrev, t.leafNext, this.leafList, id);
  }
}
