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
  /**
   * SEVERAL: each source's events and first hashes, so that a removed source takes its share
   * out (DESIGN "Faults": a removed source leaves every total). Null while one source names it,
   * the common case, which keeps no copy.
   */
  parts: Map<number, Part> | null;
}

/** What one of several sources naming a parent gave it. */
interface Part {
  events: number;
  children: Set<HashKey>;
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
      e = {
        children: null,
        fanOut: 0,
        events: 0,
        depthBlocks: null,
        blockSize,
        source,
        parts: null,
      };
      this.table.set(parent, e);
    } else if (e.source !== source && e.parts === null) {
      // A second source names it: from here on each one's share is kept apart.
      e.parts = new Map([[e.source, { events: e.events, children: childSet(e.children) }]]);
      e.source = SEVERAL;
    }
    e.events += 1;
    if (depthBlocks !== null) {
      e.depthBlocks = depthBlocks;
      e.blockSize = blockSize;
    }
    if (e.parts !== null) {
      let part = e.parts.get(source);
      if (part === undefined) {
        part = { events: 0, children: new Set() };
        e.parts.set(source, part);
      }
      part.events += 1;
      if (first !== undefined && part.children.size < MAX_CHILDREN) part.children.add(first);
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
   * A removed source leaves: the parents it alone named go, and one that several named keeps
   * only the others' events and first hashes (its fan-out counted again over theirs).
   */
  dropSource(source: number): void {
    for (const [hash, e] of this.table) {
      if (e.source === source) this.table.delete(hash);
      else if (e.parts !== null) dropPart(e, source);
    }
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

/** A parent's first hashes as a set (copied: the entry's own may grow on). */
function childSet(children: HashKey | Set<HashKey> | null): Set<HashKey> {
  if (children === null) return new Set();
  return typeof children === 'string' ? new Set([children]) : new Set(children);
}

/** Takes `source`'s share out of an entry several sources named. */
function dropPart(e: Entry, source: number): void {
  const parts = e.parts as Map<number, Part>;
  const gone = parts.get(source);
  if (gone === undefined) return;
  parts.delete(source);
  e.events -= gone.events;
  const union = new Set<HashKey>();
  for (const p of parts.values()) for (const h of p.children) union.add(h);
  e.children = union;
  e.fanOut = union.size;
  if (parts.size === 1) {
    // One source left: the entry is its own again, as if the other had never named it.
    const [only] = parts.keys();
    e.source = only as number;
    e.parts = null;
  }
}
