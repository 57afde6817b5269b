// Chain summaries (one per leaf of the forest), computed in one pass that memoises each node's
// root-to-node aggregate, so shared prefixes are walked once: O(known blocks) per query.

import type { ChainPage, ChainQuery, ChainSummary, HashMatch } from '../../shared/api-types';
import type { HashKey } from '../../shared/events';
import { MAX_HASH_MATCHES, MAX_MATCH_CHAINS } from '../../shared/limits';
import type { Forest } from './forest';
import { hashMatcher } from './hash-query';
import { NODE_MASK, NONE } from './node-table';

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
  /** Bit i: source i stored a block of the chain, ever. */
  seenMask: number;
  /** Bit i: source i holds a block of it now (the Sources column). */
  heldMask: number;
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

/** Extends a root-to-parent aggregate by the block with id (mutates a). */
function addNode(
  a: Agg,
  forest: Forest,
  id: number,
  match: ((key: HashKey) => boolean) | null,
): void {
  const p = forest.table.page(id);
  const o = id & NODE_MASK;
  a.depth += 1;
  a.tokens += p.tokens[o] as number;
  if ((p.holders[o] as number) > 0) a.resident += 1;
  a.restores += p.restores[o] as number;
  a.mask |= p.srcMask[o] as number;
  a.seen |= p.seenMask[o] as number;
  const first = p.firstStored[o] as number;
  const last = p.lastSeen[o] as number;
  if (first < a.first) a.first = first;
  if (last > a.last) a.last = last;
  if (!a.match && match !== null && match(forest.hashOf(id))) a.match = true;
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

/** The summary of one chain given as its path of ids (forest.path), root first. */
export function pathSummary(
  forest: Forest,
  path: readonly number[],
  sourceNames: (mask: number) => string[],
): ChainSummary {
  const a = emptyAgg(forest.hashOf(path[0] as number));
  for (const id of path) addNode(a, forest, id, null);
  return toSummary(a, forest.hashOf(path[path.length - 1] as number), sourceNames);
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
  const t = forest.table;
  const memo = new Map<number, Agg>();
  const rows: ChainRow[] = [];
  const stack: number[] = [];
  for (const leafId of forest.leaves()) {
    const leaf = forest.hashOf(leafId);
    let cur = leafId;
    stack.length = 0;
    let above: Agg | undefined;
    // The length bound stops a walk around a cycle of hashes (only a broken publisher makes one).
    while (cur !== NONE && stack.length <= forest.size) {
      above = memo.get(cur);
      if (above) break;
      stack.push(cur);
      cur = forest.parentOf(cur);
    }
    const top = stack[stack.length - 1];
    const agg = above ? { ...above } : emptyAgg(top === undefined ? leaf : forest.hashOf(top));
    for (let i = stack.length - 1; i >= 0; i -= 1) {
      const id = stack[i] as number;
      addNode(agg, forest, id, match);
      if (i > 0 && (t.page(id).children[id & NODE_MASK] as number) > 1) memo.set(id, { ...agg });
    }
    if (agg.depth === 0) continue;
    rows.push({
      summary: toSummary(agg, leaf, sourceNames),
      seenMask: agg.seen,
      heldMask: agg.mask,
      match: agg.match,
    });
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

/**
 * Filter, sort and page chain rows. sourceBit is the bit of q.source (0 when unknown): a chain of
 * the source is one it stored blocks of, and with residentOnly one it holds blocks of now (not
 * one resident on another source only, which the Sources column would show without it).
 */
export function pageChains(
  rows: readonly ChainRow[],
  q: ChainQuery,
  sourceBit: number | null,
): Omit<ChainPage, 'generation'> {
  const hashFilter = q.hash !== undefined && q.hash.trim() !== '';
  const kept = rows.filter(
    (r) =>
      (!hashFilter || r.match) &&
      (sourceBit === null || ((q.residentOnly ? r.heldMask : r.seenMask) & sourceBit) !== 0) &&
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
  const page = {
    total: kept.length,
    offset,
    rows: kept.slice(offset, offset + limit).map((r) => r.summary),
  };
  if (q.locate === undefined) return page;
  const located = kept.findIndex((r) => r.summary.id === q.locate);
  return located < 0 ? page : { ...page, located };
}

/** Known blocks whose key matches text (bounded), with leaves of chains through each (bounded). */
export function searchForest(
  forest: Forest,
  text: string,
  maxResults = MAX_HASH_MATCHES,
  maxChains = MAX_MATCH_CHAINS,
): HashMatch[] {
  const match = hashMatcher(text);
  if (!match) return [];
  const t = forest.table;
  // The first maxResults matches in the order the blocks became known (ids are reused: no order).
  const ids: number[] = [];
  for (const [hash, id] of forest.entries()) if (match(hash)) ids.push(id);
  if (ids.length === 0) return [];
  const born = (id: number) => t.page(id).born[id & NODE_MASK] as number;
  ids.sort((x, y) => born(x) - born(y));
  const found = new Map<HashKey, HashMatch>();
  for (const id of ids.slice(0, maxResults)) {
    const hash = forest.hashOf(id);
    const resident = (t.page(id).holders[id & NODE_MASK] as number) > 0;
    found.set(hash, { hash, resident, chainIds: [], chainCount: 0 });
  }
  for (const leafId of forest.leaves()) {
    const leaf = forest.hashOf(leafId);
    const seen = new Set<number>();
    let cur = leafId;
    while (cur !== NONE && !seen.has(cur)) {
      seen.add(cur);
      const m = found.get(forest.hashOf(cur));
      if (m) {
        m.chainCount += 1;
        if (m.chainIds.length < maxChains) m.chainIds.push(leaf);
      }
      cur = forest.parentOf(cur);
    }
  }
  return [...found.values()];
}
