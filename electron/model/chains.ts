// Chain summaries (one per leaf of the forest), computed in one pass that memoises each node's
// root-to-node aggregate, so shared prefixes are walked once: O(known blocks) per query.

import type { ChainPage, ChainQuery, ChainSummary, HashMatch } from '../../shared/api-types';
import type { HashKey } from '../../shared/events';
import type { BlockNode } from './block-node';
import type { Forest } from './forest';
import { hashMatcher } from './hash-query';

/** A root-to-node aggregate: what a chain summary adds up. */
interface Agg {
  root: HashKey;
  depth: number;
  tokens: number;
  resident: number;
  restores: number;
  mask: number;
  seen: number;
  first: number;
  last: number;
  match: boolean;
}

/** A chain summary plus the masks the filters need. */
export interface ChainRow {
  summary: ChainSummary;
  seenMask: number;
  match: boolean;
}

function emptyAgg(root: HashKey): Agg {
  return {
    root,
    depth: 0,
    tokens: 0,
    resident: 0,
    restores: 0,
    mask: 0,
    seen: 0,
    first: Infinity,
    last: -Infinity,
    match: false,
  };
}

/** Extends a root-to-parent aggregate by one node (mutates a). */
function addNode(a: Agg, n: BlockNode, match: ((key: HashKey) => boolean) | null): void {
  a.depth += 1;
  a.tokens += n.tokens;
  if (n.holders > 0) a.resident += 1;
  a.restores += n.restores;
  a.mask |= n.srcMask;
  a.seen |= n.seenMask;
  if (n.firstStored < a.first) a.first = n.firstStored;
  if (n.lastSeen > a.last) a.last = n.lastSeen;
  if (!a.match && match !== null && match(n.hash)) a.match = true;
}

function toSummary(a: Agg, leaf: HashKey, sourceNames: (mask: number) => string[]): ChainSummary {
  return {
    id: leaf,
    root: a.root,
    leaf,
    depthBlocks: a.depth,
    depthTokens: a.tokens,
    residentBlocks: a.resident,
    evictedBlocks: a.depth - a.resident,
    restores: a.restores,
    sources: sourceNames(a.mask),
    firstSeen: a.first,
    lastSeen: a.last,
  };
}

/** The summary of one chain given as its path, root first. */
export function pathSummary(
  path: readonly BlockNode[],
  sourceNames: (mask: number) => string[],
): ChainSummary {
  const a = emptyAgg((path[0] as BlockNode).hash);
  for (const n of path) addNode(a, n, null);
  return toSummary(a, (path[path.length - 1] as BlockNode).hash, sourceNames);
}

/**
 * Aggregates root→leaf for every leaf. Sums are order-free, so each leaf's walk stops at the first
 * branch point already aggregated; only branch points (blocks with several children) are memoised.
 * match marks paths through a block matching the hash filter.
 */
export function computeChains(
  forest: Forest,
  sourceNames: (mask: number) => string[],
  match: ((key: HashKey) => boolean) | null,
): ChainRow[] {
  const memo = new Map<HashKey, Agg>();
  const rows: ChainRow[] = [];
  const stack: BlockNode[] = [];
  for (const leafNode of forest.leaves) {
    const leaf = leafNode.hash;
    let cur: BlockNode | undefined = leafNode;
    stack.length = 0;
    let above: Agg | undefined;
    // The length bound stops a walk around a cycle of hashes (only a broken publisher makes one).
    while (cur && stack.length <= forest.nodes.size) {
      above = memo.get(cur.hash);
      if (above) break;
      stack.push(cur);
      cur = cur.parent === null ? undefined : forest.get(cur.parent);
    }
    const top = stack[stack.length - 1];
    const agg = above ? { ...above } : emptyAgg(top ? top.hash : leaf);
    for (let i = stack.length - 1; i >= 0; i -= 1) {
      const n = stack[i] as BlockNode;
      addNode(agg, n, match);
      if (i > 0 && n.children > 1) memo.set(n.hash, { ...agg });
    }
    if (agg.depth === 0) continue;
    rows.push({ summary: toSummary(agg, leaf, sourceNames), seenMask: agg.seen, match: agg.match });
  }
  return rows;
}

const SORT_KEY: Record<ChainQuery['sort'], (s: ChainSummary) => number> = {
  depth: (s) => s.depthBlocks,
  lastSeen: (s) => s.lastSeen,
  firstSeen: (s) => s.firstSeen,
  restores: (s) => s.restores,
  resident: (s) => s.residentBlocks,
  evicted: (s) => s.evictedBlocks,
  sources: (s) => s.sources.length,
};

/** Filter, sort and page chain rows. sourceBit is the bit of q.source (0 when unknown). */
export function pageChains(rows: ChainRow[], q: ChainQuery, sourceBit: number | null): ChainPage {
  const hashFilter = q.hash !== undefined && q.hash.trim() !== '';
  const kept = rows.filter(
    (r) =>
      (!hashFilter || r.match) &&
      (sourceBit === null || (r.seenMask & sourceBit) !== 0) &&
      (!q.residentOnly || r.summary.residentBlocks > 0),
  );
  const key = SORT_KEY[q.sort];
  const dir = q.desc ? -1 : 1;
  kept.sort((a, b) => {
    const d = key(a.summary) - key(b.summary);
    if (d !== 0) return d * dir;
    return a.summary.id < b.summary.id ? -1 : a.summary.id > b.summary.id ? 1 : 0;
  });
  const offset = Math.max(0, Math.floor(q.offset));
  const limit = Math.max(0, Math.floor(q.limit));
  return {
    total: kept.length,
    offset,
    rows: kept.slice(offset, offset + limit).map((r) => r.summary),
  };
}

/** Known blocks whose key matches text (bounded), with leaves of chains through each (bounded). */
export function searchForest(
  forest: Forest,
  text: string,
  maxResults = 50,
  maxChains = 20,
): HashMatch[] {
  const match = hashMatcher(text);
  if (!match) return [];
  const found = new Map<HashKey, HashMatch>();
  for (const [hash, node] of forest.nodes) {
    if (!match(hash)) continue;
    found.set(hash, { hash, resident: node.holders > 0, chainIds: [] });
    if (found.size >= maxResults) break;
  }
  if (found.size === 0) return [];
  for (const leafNode of forest.leaves) {
    const leaf = leafNode.hash;
    const seen = new Set<HashKey>();
    let cur: BlockNode | undefined = leafNode;
    while (cur && !seen.has(cur.hash)) {
      seen.add(cur.hash);
      const m = found.get(cur.hash);
      if (m && m.chainIds.length < maxChains) m.chainIds.push(leaf);
      cur = cur.parent === null ? undefined : forest.get(cur.parent);
    }
  }
  return [...found.values()];
}
