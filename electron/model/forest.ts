// The hash forest: every stored block linked to its parent. Leaves (blocks with no known child)
// are kept incrementally, one chain per leaf. Blocks resident nowhere are remembered in LRU order
// up to a cap, so re-stores and lifetimes can be measured while memory stays bounded.

import type { HashKey } from '../../shared/events';
import { appendBounded, BlockNode, sourceBit } from './block-node';

/** Blocks resident nowhere that stay known (oldest forgotten first). */
export const DEFAULT_EVICTED_CAP = 200_000;

/** Known blocks, their links, and the leaf set. */
export class Forest {
  readonly nodes = new Map<HashKey, BlockNode>();
  /** Children per parent hash (also for a parent no longer known, so counts survive forgetting). */
  private readonly childCount = new Map<HashKey, number>();
  readonly leaves = new Set<HashKey>();
  /**
   * Known blocks resident nowhere, oldest first, as a queue with lazy deletion: an entry is live
   * while its stamp equals the node's. (A Set used as an LRU slows to a crawl in V8: deleted slots
   * at its front are skipped again on every values().next().)
   */
  private queueHash: HashKey[] = [];
  private queueStamp: number[] = [];
  private queueHead = 0;
  private stamp = 0;
  private evictedCount = 0;
  /** Bumped on every change, so query results can be cached. */
  version = 0;
  forgotten = 0;

  constructor(private readonly evictedCap = DEFAULT_EVICTED_CAP) {}

  /** Known children of hash. */
  children(hash: HashKey): number {
    return this.childCount.get(hash) ?? 0;
  }

  get(hash: HashKey): BlockNode | undefined {
    return this.nodes.get(hash);
  }

  /** Record a store of hash under parent; returns the node and whether it was a re-store after eviction. */
  store(
    hash: HashKey,
    parent: HashKey | null,
    ts: number,
    medium: string | null,
    tokens: number,
  ): { node: BlockNode; restore: boolean; lastRemoved: number | null } {
    this.version += 1;
    if (parent === hash) parent = null;
    let node = this.nodes.get(hash);
    let restore = false;
    let lastRemoved: number | null = null;
    if (!node) {
      node = new BlockNode(hash, parent, ts, medium, tokens);
      this.nodes.set(hash, node);
      if (!this.childCount.has(hash)) this.leaves.add(hash);
      if (parent !== null) this.link(parent);
    } else {
      if (node.holders === 0) {
        restore = true;
        node.restores += 1;
        lastRemoved = node.removedAt[node.removedAt.length - 1] ?? null;
      }
      if (node.parent !== parent) {
        if (node.parent !== null) this.unlink(node.parent);
        node.parent = parent;
        if (parent !== null) this.link(parent);
      }
      if (medium !== null) node.medium = medium;
      if (tokens > 0) node.tokens = tokens;
    }
    node.timesStored += 1;
    node.lastStore = ts;
    node.lastSeen = Math.max(node.lastSeen, ts);
    node.storedAt = appendBounded(node.storedAt, ts);
    return { node, restore, lastRemoved };
  }

  /** A (source, medium) pair now holds node. */
  addHolder(node: BlockNode, sourceIdx: number): void {
    this.version += 1;
    if (node.evictStamp !== 0) {
      node.evictStamp = 0;
      this.evictedCount -= 1;
    }
    node.holders += 1;
    node.srcMask |= sourceBit(sourceIdx);
    node.seenMask |= sourceBit(sourceIdx);
  }

  /**
   * A (source, medium) pair let node go at ts; stillInSource when the source holds it in another
   * medium. `evicted` is false when the holder went away (an engine restart, a removed source):
   * that ends no lifetime.
   */
  removeHolder(
    node: BlockNode,
    sourceIdx: number,
    stillInSource: boolean,
    ts: number,
    evicted = true,
  ): void {
    this.version += 1;
    node.holders = Math.max(0, node.holders - 1);
    if (!stillInSource) node.srcMask &= ~sourceBit(sourceIdx);
    node.lastSeen = Math.max(node.lastSeen, ts);
    if (node.holders === 0) {
      node.removedAt = appendBounded(node.removedAt, ts);
      node.lastLifetime = evicted ? ts - node.lastStore : null;
      this.enqueue(node);
      this.trim();
    }
  }

  /** Forget the oldest blocks resident nowhere beyond the cap. */
  trim(): void {
    while (this.evictedCount > this.evictedCap && this.queueHead < this.queueHash.length) {
      const hash = this.queueHash[this.queueHead] as HashKey;
      const stamp = this.queueStamp[this.queueHead] as number;
      this.queueHead += 1;
      const node = this.nodes.get(hash);
      if (node && node.holders === 0 && node.evictStamp === stamp) this.forget(node);
    }
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queueHash.length) {
      this.queueHash = this.queueHash.slice(this.queueHead);
      this.queueStamp = this.queueStamp.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private enqueue(node: BlockNode): void {
    this.stamp += 1;
    node.evictStamp = this.stamp;
    this.evictedCount += 1;
    this.queueHash.push(node.hash);
    this.queueStamp.push(this.stamp);
    // Re-stored blocks leave stale entries behind: drop them when they dominate.
    if (this.queueHash.length - this.queueHead > 2 * this.evictedCount + 4096) {
      const hashes: HashKey[] = [];
      const stamps: number[] = [];
      for (let i = this.queueHead; i < this.queueHash.length; i += 1) {
        const h = this.queueHash[i] as HashKey;
        const st = this.queueStamp[i] as number;
        if (this.nodes.get(h)?.evictStamp === st) {
          hashes.push(h);
          stamps.push(st);
        }
      }
      this.queueHash = hashes;
      this.queueStamp = stamps;
      this.queueHead = 0;
    }
  }

  /** Root-first path from the top-most known ancestor to hash (cycle-safe). */
  path(hash: HashKey): BlockNode[] {
    const out: BlockNode[] = [];
    const seen = new Set<HashKey>();
    let cur = this.nodes.get(hash);
    while (cur && !seen.has(cur.hash)) {
      seen.add(cur.hash);
      out.push(cur);
      cur = cur.parent === null ? undefined : this.nodes.get(cur.parent);
    }
    return out.reverse();
  }

  private forget(node: BlockNode): void {
    const hash = node.hash;
    this.evictedCount -= 1;
    node.evictStamp = 0;
    this.nodes.delete(hash);
    this.leaves.delete(hash);
    if (node.parent !== null) this.unlink(node.parent);
    this.forgotten += 1;
    this.version += 1;
  }

  private link(parent: HashKey): void {
    this.childCount.set(parent, (this.childCount.get(parent) ?? 0) + 1);
    this.leaves.delete(parent);
  }

  private unlink(parent: HashKey): void {
    const c = (this.childCount.get(parent) ?? 1) - 1;
    if (c > 0) {
      this.childCount.set(parent, c);
      return;
    }
    this.childCount.delete(parent);
    if (this.nodes.has(parent)) this.leaves.add(parent);
  }
}
