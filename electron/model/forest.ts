// The hash forest: every stored block linked to its parent. Leaves (blocks with no known child)
// are kept incrementally, one chain per leaf. Blocks resident nowhere are remembered in LRU order
// up to a cap, so re-stores and lifetimes can be measured while memory stays bounded.
// The node map is the forest's one lookup by hash text: child counts, leaves and the evicted queue
// hold the nodes themselves, so a block's store costs one string lookup (two when it is new).

import type { HashKey } from '../../shared/events';
import { appendBounded, BlockNode, sourceBit } from './block-node';

/** Blocks resident nowhere that stay known (oldest forgotten first). */
export const DEFAULT_EVICTED_CAP = 200_000;

/** Known blocks, their links, and the leaf set. */
export class Forest {
  readonly nodes = new Map<HashKey, BlockNode>();
  /**
   * Children of parents that are not known blocks (a parent never stored, or forgotten), so that
   * counts survive forgetting; a known block counts its own (BlockNode.children).
   */
  private readonly orphanChildren = new Map<HashKey, number>();
  readonly leaves = new Set<BlockNode>();
  /**
   * Known blocks resident nowhere, oldest first, as a queue with lazy deletion: an entry is live
   * while its stamp equals the node's. (A Set used as an LRU slows to a crawl in V8: deleted slots
   * at its front are skipped again on every values().next().)
   */
  private queueNode: BlockNode[] = [];
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
    return this.nodes.get(hash)?.children ?? this.orphanChildren.get(hash) ?? 0;
  }

  get(hash: HashKey): BlockNode | undefined {
    return this.nodes.get(hash);
  }

  /**
   * Record a store of hash under parent and return its node. `prev` is the node stored just before
   * in the same event (whose hash is parent), which spares looking the parent up again.
   */
  store(
    hash: HashKey,
    parent: HashKey | null,
    ts: number,
    medium: string | null,
    tokens: number,
    prev: BlockNode | null = null,
  ): BlockNode {
    this.version += 1;
    if (parent === hash) parent = null;
    let node = this.nodes.get(hash);
    if (!node) {
      node = new BlockNode(hash, parent, ts, medium, tokens);
      this.nodes.set(hash, node);
      if (this.orphanChildren.size > 0) {
        const had = this.orphanChildren.get(hash);
        if (had !== undefined) {
          node.children = had;
          this.orphanChildren.delete(hash);
        }
      }
      if (node.children === 0) this.leaves.add(node);
      if (parent !== null) this.link(parent, prev);
    } else {
      if (node.holders === 0) node.restores += 1;
      if (node.parent !== parent) {
        if (node.parent !== null) this.unlink(node.parent);
        node.parent = parent;
        if (parent !== null) this.link(parent, prev);
      }
      if (medium !== null) node.medium = medium;
      if (tokens > 0) node.tokens = tokens;
    }
    node.timesStored += 1;
    node.lastStore = ts;
    node.lastSeen = Math.max(node.lastSeen, ts);
    node.storedAt = appendBounded(node.storedAt, ts);
    return node;
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
    while (this.evictedCount > this.evictedCap && this.queueHead < this.queueNode.length) {
      const node = this.queueNode[this.queueHead] as BlockNode;
      const stamp = this.queueStamp[this.queueHead] as number;
      this.queueHead += 1;
      // A forgotten node's stamp is 0, so a stale entry never forgets twice.
      if (node.holders === 0 && node.evictStamp === stamp) this.forget(node);
    }
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queueNode.length) {
      this.queueNode = this.queueNode.slice(this.queueHead);
      this.queueStamp = this.queueStamp.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private enqueue(node: BlockNode): void {
    this.stamp += 1;
    node.evictStamp = this.stamp;
    this.evictedCount += 1;
    this.queueNode.push(node);
    this.queueStamp.push(this.stamp);
    // Re-stored blocks leave stale entries behind: drop them when they dominate.
    if (this.queueNode.length - this.queueHead > 2 * this.evictedCount + 4096) {
      const nodes: BlockNode[] = [];
      const stamps: number[] = [];
      for (let i = this.queueHead; i < this.queueNode.length; i += 1) {
        const n = this.queueNode[i] as BlockNode;
        const st = this.queueStamp[i] as number;
        if (n.evictStamp === st) {
          nodes.push(n);
          stamps.push(st);
        }
      }
      this.queueNode = nodes;
      this.queueStamp = stamps;
      this.queueHead = 0;
    }
  }

  /** Root-first path from the top-most known ancestor to hash (cycle-safe). */
  path(hash: HashKey): BlockNode[] {
    const out: BlockNode[] = [];
    const seen = new Set<BlockNode>();
    let cur = this.nodes.get(hash);
    while (cur && !seen.has(cur)) {
      seen.add(cur);
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
    this.leaves.delete(node);
    if (node.children > 0) this.orphanChildren.set(hash, node.children);
    if (node.parent !== null) this.unlink(node.parent);
    this.forgotten += 1;
    this.version += 1;
  }

  /** One more child of parent; `known` is parent's node when the caller has it. */
  private link(parent: HashKey, known: BlockNode | null): void {
    const node = known ?? this.nodes.get(parent);
    if (node) {
      if (node.children === 0) this.leaves.delete(node);
      node.children += 1;
      return;
    }
    this.orphanChildren.set(parent, (this.orphanChildren.get(parent) ?? 0) + 1);
  }

  private unlink(parent: HashKey): void {
    const node = this.nodes.get(parent);
    if (node) {
      node.children = Math.max(0, node.children - 1);
      if (node.children === 0) this.leaves.add(node);
      return;
    }
    const c = (this.orphanChildren.get(parent) ?? 1) - 1;
    if (c > 0) this.orphanChildren.set(parent, c);
    else this.orphanChildren.delete(parent);
  }
}
