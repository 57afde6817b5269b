// Hot prefixes in typed columns against the Map of objects they replaced (kept here as the oracle,
// its bound made a parameter): the same rows, the same order and the same exact flag through
// pruning, fan-out past one, several sources and removed ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHot, HotPrefixes } from '../../electron/analysis/hot-prefixes';
import type { HotPrefix } from '../../shared/analysis-report';

interface Entry {
  children: string | Set<string> | null;
  fanOut: number;
  events: number;
  depthBlocks: number | null;
  blockSize: number;
  source: number;
  parts: Map<number, { events: number; children: Set<string> }> | null;
}

/** The former implementation: a Map of one object (and its strings) per parent. */
class MapHotPrefixes {
  private readonly table = new Map<string, Entry>();
  exact = true;
  constructor(
    private readonly maxParents: number,
    private readonly maxChildren = 100_000,
  ) {}

  add(
    parent: string,
    first: string | undefined,
    depth: number | null,
    size: number,
    source: number,
  ): void {
    let e = this.table.get(parent);
    if (!e) {
      if (this.table.size >= this.maxParents) this.prune();
      e = {
        children: null,
        fanOut: 0,
        events: 0,
        depthBlocks: null,
        blockSize: size,
        source,
        parts: null,
      };
      this.table.set(parent, e);
    } else if (e.source !== source && e.parts === null) {
      const c = e.children;
      const copy =
        c === null ? new Set<string>() : typeof c === 'string' ? new Set([c]) : new Set(c);
      e.parts = new Map([[e.source, { events: e.events, children: copy }]]);
      e.source = -1;
    }
    e.events += 1;
    if (depth !== null) {
      e.depthBlocks = depth;
      e.blockSize = size;
    }
    if (e.parts !== null) {
      let part = e.parts.get(source);
      if (part === undefined) e.parts.set(source, (part = { events: 0, children: new Set() }));
      part.events += 1;
      if (first !== undefined && part.children.size < this.maxChildren) part.children.add(first);
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
      if (e.children.size < this.maxChildren) e.children.add(first);
      else this.exact = false;
      e.fanOut = e.children.size;
    }
  }

  dropSource(source: number): void {
    for (const [hash, e] of this.table) {
      if (e.source === source) this.table.delete(hash);
      else if (e.parts !== null) {
        const gone = e.parts.get(source);
        if (gone === undefined) continue;
        e.parts.delete(source);
        e.events -= gone.events;
        const union = new Set<string>();
        for (const p of e.parts.values()) for (const h of p.children) union.add(h);
        e.children = union;
        e.fanOut = union.size;
        if (e.parts.size === 1) {
          e.source = [...e.parts.keys()][0] as number;
          e.parts = null;
        }
      }
    }
  }

  top(n: number): HotPrefix[] {
    const rows = [...this.table].map(([hash, e]) => ({
      hash,
      fanOut: e.fanOut,
      storeEvents: e.events,
      depthBlocks: e.depthBlocks,
      depthTokens: e.depthBlocks === null ? null : e.depthBlocks * e.blockSize,
    }));
    return rows.sort(compareHot).slice(0, Math.max(0, n));
  }

  private prune(): void {
    this.exact = false;
    const rows = [...this.table].map(([hash, e]) => ({
      hash,
      fanOut: e.fanOut,
      storeEvents: e.events,
    }));
    rows.sort(compareHot);
    for (const r of rows.slice(Math.floor(this.maxParents / 2))) this.table.delete(r.hash);
  }
}

// Few distinct parents and first hashes, so that fan-outs and repeats are common: decimals (short
// and u64, the typed path) and text (hex digests, the side path).
const hash = fc.oneof(
  fc.integer({ min: 0, max: 30 }).map((n) => `${n}`),
  fc.integer({ min: 0, max: 12 }).map((n) => `${18446744073709551615n - BigInt(n) * 10n ** 9n}`),
  fc.integer({ min: 0, max: 8 }).map((n) => `ab${n}`),
);
const step = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      k: fc.constant('add' as const),
      parent: hash,
      first: fc.option(hash, { nil: undefined, freq: 8 }),
      depth: fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }),
      size: fc.constantFrom(16, 32),
      source: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('drop' as const),
      source: fc.integer({ min: 0, max: 3 }),
    }),
  },
);

describe('hot prefixes in typed columns', () => {
  it('rank, count and prune as the Map of objects did', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 24 }),
        fc.array(step, { maxLength: 400 }),
        (max, steps) => {
          const typed = new HotPrefixes(max);
          const oracle = new MapHotPrefixes(max);
          for (const s of steps) {
            if (s.k === 'add') {
              typed.add(s.parent, s.first, s.depth, s.size, s.source);
              oracle.add(s.parent, s.first, s.depth, s.size, s.source);
            } else {
              typed.dropSource(s.source);
              oracle.dropSource(s.source);
            }
            expect(typed.top(3)).toEqual(oracle.top(3));
          }
          expect(typed.top(1000)).toEqual(oracle.top(1000));
          expect(typed.exact).toBe(oracle.exact);
          expect(typed.size).toBe(oracle.top(1000).length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the better half when full, whatever the ties (a selection, not a sort)', () => {
    const typed = new HotPrefixes(1000);
    const oracle = new MapHotPrefixes(1000);
    // 5,000 parents, most with one first hash and one event: the ties are broken by the hash text.
    for (let i = 0; i < 5000; i++) {
      const parent = `${(i * 7919) % 100_003}${i % 3 === 0 ? '' : '7'}`;
      const first = i % 10 === 0 ? `c${i % 4}` : `${i}`;
      typed.add(parent, first, i % 5, 16, i % 2);
      oracle.add(parent, first, i % 5, 16, i % 2);
    }
    expect(typed.top(1000)).toEqual(oracle.top(1000));
    expect(typed.exact).toBe(false);
  });
});
