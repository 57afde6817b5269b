// Hot prefixes: per parent hash, its fan-out (distinct first hashes of the BlockStored events
// naming it as parent_block_hash) and how many such events there were. Bounded: past
// MAX_PARENTS the table keeps its top half and says it is no longer exact.

import type { HotPrefix } from '../../shared/analysis-report';
import type { HashKey } from '../../shared/events';

/** Parents tracked before the table is pruned. */
export const MAX_PARENTS = 200_000;
/** Distinct first hashes remembered per parent (fan-out keeps counting exactly up to here). */
const MAX_CHILDREN = 100_000;

interface Entry {
  children: HashKey | Set<HashKey> | null;
  fanOut: number;
  events: number;
  depthBlocks: number | null;
  blockSize: number;
  /** The one source whose events named this parent, or SEVERAL. */
  source: number;
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
  private readonly table = new Map<HashKey, Entry>();
  exact = true;

  /** A BlockStored event naming parent, whose first hash is first (undefined: no hashes). */
  add(
    parent: HashKey,
    first: HashKey | undefined,
    depthBlocks: number | null,
    blockSize: number,
    source: number,
  ): void {
    let e = this.table.get(parent);
    if (!e) {
      if (this.table.size >= MAX_PARENTS) this.prune();
      e = { children: null, fanOut: 0, events: 0, depthBlocks: null, blockSize, source };
      this.table.set(parent, e);
    } else if (e.source !== source) e.source = SEVERAL;
    e.events += 1;
    if (depthBlocks !== null) {
      e.depthBlocks = depthBlocks;
      e.blockSize = blockSize;
    }
    if (first === undefined) return;
    if (e.children === null) {
      e.children = first;
      e.fanOut = 1;
    } else if (typeof e.children === 'string') {
      if (e.children !== first) {
        e.children = new Set([e.children, first]);
        e.fanOut = 2;
      }
    } else if (!e.children.has(first)) {
      if (e.children.size < MAX_CHILDREN) e.children.add(first);
      else this.exact = false;
      e.fanOut = e.children.size;
    }
  }

  /**
   * A removed source's parents go. One that several sources named keeps its counts (they are
   * not kept per source): the report can overstate it until every source that named it is gone.
   */
  dropSource(source: number): void {
    for (const [hash, e] of this.table) if (e.source === source) this.table.delete(hash);
  }

  /** The top n, ranked by compareHot (one pass, keeping the best n in order). */
  top(n: number): HotPrefix[] {
    const best: HotPrefix[] = [];
    if (n <= 0) return best;
    for (const [hash, e] of this.table) {
      const row = { hash, fanOut: e.fanOut, storeEvents: e.events };
      if (best.length >= n && compareHot(row, best[best.length - 1] as HotPrefix) >= 0) continue;
      let i = best.length;
      while (i > 0 && compareHot(row, best[i - 1] as HotPrefix) < 0) i -= 1;
      best.splice(i, 0, {
        ...row,
        depthBlocks: e.depthBlocks,
        depthTokens: e.depthBlocks === null ? null : e.depthBlocks * e.blockSize,
      });
      if (best.length > n) best.pop();
    }
    return best;
  }

  /** Keeps the better half, so the table stays bounded; counts of what returns start again. */
  private prune(): void {
    this.exact = false;
    const rows = [...this.table].map(([hash, e]) => ({
      hash,
      fanOut: e.fanOut,
      storeEvents: e.events,
    }));
    rows.sort(compareHot);
    for (const r of rows.slice(Math.floor(MAX_PARENTS / 2))) this.table.delete(r.hash);
  }
}
