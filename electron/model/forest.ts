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
import { NODE_MASK, NodeTable, NONE } from './node-table';
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
    for (let id = 0; id < t.issued; id += 1)
      if (t.page(id).live[id & NODE_MASK] === 1) yield [this.hashOf(id), id];
  }

  /** The hash of the known block with this id (made from its sid's parts: no string per block). */
  hashOf(id: number): HashKey {
    return this.ids.keyOf(this.table.page(id).sid[id & NODE_MASK] as number);
  }

  /** Bytes of the forest's columns (for the memory figures). */
  bytes(): number {
    return this.table.bytes() + this.orphanChildren.bytes();
  }

  /** Ids of the known blocks with no known child, in the order they became leaves. */
  *leaves(): IterableIterator<number> {
    const t = this.table;
    for (
      let id = this.leafList.head;
      id !== NONE;
      id = t.page(id).leafNext[id & NODE_MASK] as number
    )
      yield id;
  }

  /** Known children of hash. */
  children(hash: HashKey): number {
    const id = this.idOf(hash);
    return id === NONE
      ? this.orphanChildren.get(hash)
      : (this.table.page(id).children[id & NODE_MASK] as number);
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
    const p = t.page(id);
    const o = id & NODE_MASK;
    const medium = p.medium[o] as number;
    const lifetime = p.lastLifetime[o] as number;
    return {
      hash: this.hashOf(id),
      parent: t.parentKey(id),
      firstStored: p.firstStored[o] as number,
      medium: medium === NONE ? null : (this.mediaNames[medium] as string),
      tokens: p.tokens[o] as number,
      timesStored: p.timesStored[o] as number,
      timesRemoved: p.removals[o] as number,
      restores: p.restores[o] as number,
      storedAt: t.storeTimes(id),
      removedAt: t.removeTimes(id),
      lastStore: p.lastStore[o] as number,
      lastSeen: p.lastSeen[o] as number,
      lastLifetime: Number.isNaN(lifetime) ? null : lifetime,
      holders: p.holders[o] as number,
      srcMask: p.srcMask[o] as number,
      seenMask: p.seenMask[o] as number,
      children: p.children[o] as number,
    };
  }

  /**
   * Record a store of the hash with shared id sid under the hash with parentSid (NO_ID: none) and
   * return its block's id; both sids are held for the caller's batch (BatchIds). `medium` is a
   * mediumId; `prev` is the id of parent's block when the caller knows it (the block stored just
   * before in the same event, or the named parent's), which spares looking it up again; `chain` is
   * false for an offload tier's store (storeIsChain), which moves a block, never recomputes it.
   */
  store(
    sid: number,
    parentSid: number,
    ts: number,
    medium: number,
    tokens: number,
    prev = NONE,
    chain = true,
  ): number {
    this.version += 1;
    if (parentSid === sid) parentSid = NO_ID;
    const t = this.table;
    let id = this.ids.forestId(sid);
    if (id === NONE) {
      id = t.alloc(ts, medium, tokens);
      const p = t.page(id);
      const o = id & NODE_MASK;
      p.sid[o] = sid;
      this.ids.setForestId(sid, id);
      this.known += 1;
      if (this.orphanChildren.size > 0) p.children[o] = this.takeOrphans(sid);
      if (p.children[o] === 0) this.addLeaf(id);
      // Only a block that took children back can close a cycle through its new parent.
      if (parentSid !== NO_ID && (p.children[o] === 0 || !this.descends(parentSid, id)))
        this.link(id, parentSid, prev);
    } else {
      const p = t.page(id);
      const o = id & NODE_MASK;
      // Recomputed: stored again while no (source, medium) held it. A GPU eviction followed by
      // its offload to CPU is a move, not a recompute.
      if (chain && p.holders[o] === 0) p.restores[o] = (p.restores[o] as number) + 1;
      // A block hash names its whole prefix, so a known parent never changes: a store naming
      // another one (an offload tier's, a collision) does not re-parent the block. A parent not
      // known yet is learnt, unless it descends from the block (that would close a cycle).
      if (
        parentSid !== NO_ID &&
        !t.hasParent(id) &&
        (p.children[o] === 0 || !this.descends(parentSid, id))
      )
        this.link(id, parentSid, prev);
      if (medium !== NONE) p.medium[o] = medium;
      if (tokens > 0) p.tokens[o] = tokens;
    }
    const page = t.page(id);
    const at = id & NODE_MASK;
    page.timesStored[at] = (page.timesStored[at] as number) + 1;
    page.lastStore[at] = ts;
    page.lastSeen[at] = Math.max(page.lastSeen[at] as number, ts);
    t.pushStored(id, ts);
    return id;
  }

  /**
   * store() by the hashes' texts, for a caller that did not look its batch up (a test, a tool):
   * both are looked up here, held until stored.
   */
  storeKey(
    hash: HashKey,
    parent: HashKey | null,
    ts: number,
    medium: number,
    tokens: number,
    prev = NONE,
    chain = true,
  ): number {
    const ids = this.ids;
    ids.hold();
    try {
      const parentSid = parent === null ? NO_ID : ids.intern(parent);
      return this.store(ids.intern(hash), parentSid, ts, medium, tokens, prev, chain);
    } finally {
      ids.settle();
    }
  }

  /** A (source, medium) pair now holds the block. */
  addHolder(id: number, sourceIdx: number): void {
    this.version += 1;
    const p = this.table.page(id);
    const o = id & NODE_MASK;
    if (p.evicted[o] === 1) this.unlist(id);
    p.holders[o] = (p.holders[o] as number) + 1;
    p.srcMask[o] = (p.srcMask[o] as number) | sourceBit(sourceIdx);
    p.seenMask[o] = (p.seenMask[o] as number) | sourceBit(sourceIdx);
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
    const p = t.page(id);
    const o = id & NODE_MASK;
    const holders = Math.max(0, (p.holders[o] as number) - 1);
    p.holders[o] = holders;
    if (!stillInSource) p.srcMask[o] = (p.srcMask[o] as number) & ~sourceBit(sourceIdx);
    p.lastSeen[o] = Math.max(p.lastSeen[o] as number, ts);
    if (holders === 0) {
      t.pushRemoved(id, ts);
      // A removal before its store (the clock stepped back) ends no lifetime either.
      const stored = p.lastStore[o] as number;
      p.lastLifetime[o] = evicted && ts >= stored ? ts - stored : NaN;
      this.list(id);
      this.trim();
    }
  }

  /**
   * Takes a removed source (sourceIdx; its resident blocks released first) out of every block's
   * sources seen: it leaves every total, the chains too. A block resident nowhere that no other
   * source stored is forgotten, not listed as evicted at the time of the removal. A scan of every
   * block: a removal is rare.
   */
  forgetSource(sourceIdx: number): void {
    const bit = sourceBit(sourceIdx);
    // Sources past the 31st have no bit: theirs cannot be told apart.
    if (bit === 0) return;
    const t = this.table;
    for (let id = 0; id < t.issued; id += 1) {
      const p = t.page(id);
      const o = id & NODE_MASK;
      const seen = p.seenMask[o] as number;
      if (p.live[o] === 0 || (seen & bit) === 0) continue;
      p.seenMask[o] = seen & ~bit;
      if (p.seenMask[o] === 0 && p.holders[o] === 0) this.forget(id);
    }
    this.version += 1;
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
    const p = t.page(id);
    const o = id & NODE_MASK;
    const known = p.parentId[o] as number;
    if (known !== NONE && t.page(known).gen[known & NODE_MASK] === p.parentGen[o]) return known;
    // That life of the parent ended (or it was never found): look it up by hash, and keep it.
    const parts = this.parts;
    const sid = t.parentParts(id, parts)
      ? this.ids.findParts(parts.hi, parts.lo)
      : this.ids.find(t.parentKey(id) as HashKey);
    const found = sid === NO_ID ? NONE : this.ids.forestId(sid);
    p.parentId[o] = found;
    if (found !== NONE) p.parentGen[o] = t.page(found).gen[found & NODE_MASK] as number;
    return found;
  }

  /**
   * Whether the known chain above the hash with shared id sid (it included) reaches block id.
   * O(depth), taken only when id has children, which is rare on a new store (its children came
   * first) and on a re-store that names a parent for the first time. The forest has no cycle, so
   * the walk ends.
   */
  private descends(sid: number, id: number): boolean {
    let cur = this.ids.forestId(sid);
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
    const p = t.page(id);
    if (p.evicted[id & NODE_MASK] === 1) this.unlist(id);
    p.evicted[id & NODE_MASK] = 1;
    appendId(t, false, this.evictedList, id);
    this.evictedCount += 1;
  }

  private unlist(id: number): void {
    const t = this.table;
    detachId(t, false, this.evictedList, id);
    t.page(id).evicted[id & NODE_MASK] = 0;
    this.evictedCount -= 1;
  }

  private forget(id: number): void {
    const t = this.table;
    const p = t.page(id);
    const o = id & NODE_MASK;
    const children = p.children[o] as number;
    const sid = p.sid[o] as number;
    // Children that outlive it count under it as orphans (by its hash's parts: no string made).
    if (children > 0) {
      if (this.ids.keyParts(sid, this.parts))
        this.orphanChildren.addParts(this.parts.hi, this.parts.lo, children);
      else this.orphanChildren.add(this.ids.keyOf(sid), children);
    }
    this.unlist(id);
    this.ids.setForestId(sid, NONE);
    this.known -= 1;
    this.removeLeaf(id);
    if (t.hasParent(id)) this.unlink(id);
    t.release(id);
    this.forgotten += 1;
    this.version += 1;
  }

  /**
   * Links id under the hash with shared id parentSid (one more child of it); `known` is its block's
   * id when the caller has it.
   */
  private link(id: number, parentSid: number, known: number): void {
    const t = this.table;
    const page = t.page(id);
    const o = id & NODE_MASK;
    const p = known !== NONE ? known : this.ids.forestId(parentSid);
    page.parentId[o] = p;
    // The parent's hash is kept by its parts when it is a decimal: no string made or parsed.
    const parts = this.parts;
    const decimal = this.ids.keyParts(parentSid, parts);
    if (decimal) t.setParentParts(id, parts.hi, parts.lo);
    else t.setParent(id, this.ids.keyOf(parentSid));
    if (p === NONE) {
      if (decimal) this.orphanChildren.addParts(parts.hi, parts.lo, 1);
      else this.orphanChildren.add(this.ids.keyOf(parentSid), 1);
      return;
    }
    const pp = t.page(p);
    const po = p & NODE_MASK;
    const n = pp.children[po] as number;
    if (n === 0) this.removeLeaf(p);
    pp.children[po] = n + 1;
    page.parentGen[o] = pp.gen[po] as number;
  }

  /** The children counted under a new block's hash (sid) while it was not known, taken back. */
  private takeOrphans(sid: number): number {
    return this.ids.keyParts(sid, this.parts)
      ? this.orphanChildren.takeParts(this.parts.hi, this.parts.lo)
      : this.orphanChildren.take(this.ids.keyOf(sid));
  }

  /** One child fewer for id's parent (id's parent hash is not null). */
  private unlink(id: number): void {
    const t = this.table;
    const p = this.parentOf(id);
    if (p !== NONE) {
      const pp = t.page(p);
      const n = Math.max(0, (pp.children[p & NODE_MASK] as number) - 1);
      pp.children[p & NODE_MASK] = n;
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
    const p = t.page(id);
    if (p.leaf[id & NODE_MASK] === 1) return;
    p.leaf[id & NODE_MASK] = 1;
    appendId(t, true, this.leafList, id);
  }

  private removeLeaf(id: number): void {
    const t = this.table;
    const p = t.page(id);
    if (p.leaf[id & NODE_MASK] === 0) return;
    p.leaf[id & NODE_MASK] = 0;
    detachId(t, true, this.leafList, id);
  }
}
