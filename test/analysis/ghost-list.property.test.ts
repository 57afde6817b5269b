// The ghost list and the whole analysis against brute-force oracles on random streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { GhostList } from '../../electron/analysis/ghost-list';
import { GhostOrder } from '../../electron/analysis/ghost-order';
import { Holdings } from '../../electron/analysis/holdings';
import type { KvEvent } from '../../shared/events';
import type { IngestRecord } from '../../shared/records';
import { batch, removed, reset, stored } from './helpers';
import { extraHits, nearestRank, oracle, type OracleInput } from './oracle';

const universe = 24;
const op = fc.record({ restore: fc.boolean(), h: fc.integer({ min: 0, max: universe - 1 }) });

describe('ghost order', () => {
  it('gives every removed hash the number of newer entries, like a plain list', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const g = new GhostOrder(universe);
        const list: number[] = [];
        let t = 0;
        for (const o of ops) {
          const h = o.h;
          const i = list.indexOf(h);
          if (o.restore) {
            const got = g.take(h);
            if (i < 0) expect(got).toBeNull();
            else {
              expect(got?.newer).toBe(list.length - 1 - i);
              list.splice(i, 1);
            }
          } else if (i < 0) {
            g.push(h, (t += 1));
            list.push(h);
          }
          expect(g.size).toBe(list.length);
        }
        expect([...g.entries()]).toEqual(list);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the slots of ids held by more orders than an id has cells for, like plain lists', () => {
    // Six orders over one Holdings: an id in five or six of them overflows its four cells into
    // the orders' own tables; packing (capacity 8, 24 ids) moves slots of both kinds.
    const orders = 6;
    const step = fc.record({
      g: fc.integer({ min: 0, max: orders - 1 }),
      // Clears rare enough that an order fills its slots and packs between them.
      kind: fc
        .integer({ min: 0, max: 99 })
        .map((n) => (n < 55 ? 'push' : n < 85 ? 'take' : n < 98 ? 'pop' : 'clear')),
      h: fc.integer({ min: 0, max: universe - 1 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 1500 }), (steps) => {
        const ids = new Holdings();
        for (let h = 0; h < universe; h++) ids.intern(`h${h}`);
        const gs = Array.from({ length: orders }, () => new GhostOrder(8, ids));
        const lists: number[][] = gs.map(() => []);
        for (const s of steps) {
          const g = gs[s.g]!;
          const list = lists[s.g]!;
          const i = list.indexOf(s.h);
          if (s.kind === 'push' && i < 0) {
            g.push(s.h, 1);
            list.push(s.h);
          } else if (s.kind === 'take') {
            const got = g.take(s.h);
            expect(got?.newer ?? null).toBe(i < 0 ? null : list.length - 1 - i);
            if (i >= 0) list.splice(i, 1);
          } else if (s.kind === 'pop') {
            expect(g.popOldest()?.id).toBe(list.shift());
          } else if (s.kind === 'clear') {
            g.clear();
            list.length = 0;
          }
          expect(g.size).toBe(list.length);
          expect(g.has(s.h)).toBe(list.includes(s.h));
        }
        gs.forEach((g, k) => expect([...g.entries()]).toEqual(lists[k]));
      }),
      { numRuns: 200 },
    );
  });

  it('moves the slots it keeps beside the ids when it packs', () => {
    const ids = new Holdings();
    for (let h = 0; h < 24; h++) ids.intern(`h${h}`);
    const g = new GhostOrder(8, ids);
    for (let h = 0; h < 16; h++) g.push(h, h);
    g.take(3);
    // The 16 slots are used: this push packs 15 entries into slots 0-14 first.
    g.push(16, 16);
    expect(g.take(10)?.newer).toBe(6);
    expect(g.take(0)?.newer).toBe(14);
  });

  it('pops the oldest first and stays right across packing', () => {
    const g = new GhostOrder(4);
    for (let round = 0; round < 500; round++) {
      g.push(round, round);
      if (g.size > 3) expect(g.popOldest()?.id).toBe(round - 3);
    }
    expect(g.take(497)?.newer).toBe(2);
    expect(g.take(499)?.newer).toBe(0);
  });
});

/** A ghost list over its own interner, fed hashes as text (a hash without an id is in no G). */
function ghostList(exactCap: number, tailCap: number) {
  const ids = new Holdings();
  const g = new GhostList(ids, exactCap, tailCap);
  return {
    g,
    ids,
    add: (h: string, at: number): void => g.add(ids.find(h) >= 0 ? ids.find(h) : ids.intern(h), at),
    restore: (h: string) => (ids.find(h) < 0 ? null : g.restore(ids.find(h))),
  };
}

describe('ghost list past its exact bound', () => {
  it('stays exact below the bound and flags an estimate past it', () => {
    const { g, ids, add, restore } = ghostList(100, 50);
    for (let i = 0; i < 100; i++) add(`h${i}`, i);
    expect(g.estimate).toBe(false);
    expect(restore('h10')).toEqual({ distance: 89, removedAt: 10, weight: 1 });
    for (let i = 100; i < 5000; i++) add(`h${i}`, i);
    expect(g.estimate).toBe(true);
    // What fell off unsampled gave its id back: ids stay as many as the entries kept.
    expect(ids.idLimit).toBeLessThanOrEqual(100 + 51 + 1);
    // The newest 100 are still exact.
    expect(restore('h4990')).toEqual({ distance: 9, removedAt: 4990, weight: 1 });
    // Older ones are found only when sampled, at an estimated distance with a weight of 1/rate.
    let found = 0;
    let weight = 0;
    for (let i = 0; i < 4800; i++) {
      const hit = restore(`h${i}`);
      if (hit) {
        found += 1;
        weight += hit.weight;
        expect(hit.distance).toBeGreaterThanOrEqual(99);
      }
    }
    expect(found).toBeGreaterThan(0);
    expect(found).toBeLessThanOrEqual(50 + 1);
    // About 4,800 re-stores of the tail are estimated from the sampled ones.
    expect(weight).toBeGreaterThan(4800 / 4);
    expect(weight).toBeLessThan(4800 * 4);
  });
});

// Random streams of two sources over two media, with announcements, removals of non-resident
// hashes, clears and restarts.
const eventArb = fc.record({
  src: fc.constantFrom('s1', 's2', 's3'),
  kind: fc.constantFrom('stored', 'stored', 'stored', 'removed', 'removed', 'cleared', 'reset'),
  medium: fc.constantFrom('GPU', 'GPU', 'CPU'),
  hashes: fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 0, maxLength: 5 }),
  parent: fc.option(fc.integer({ min: 0, max: 15 })),
  dt: fc.integer({ min: 0, max: 8 }),
});

type RandomEvent = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function toStreams(evs: RandomEvent[]): { records: IngestRecord[]; inputs: OracleInput[] } {
  const records: IngestRecord[] = [];
  const inputs: OracleInput[] = [];
  let ts = 1000;
  for (const e of evs) {
    ts += e.dt;
    const hashes = e.hashes.map((h) => `${h}`);
    const parent = e.parent === null ? null : `${e.parent}`;
    let ev: KvEvent | null = null;
    if (e.kind === 'stored') {
      ev = stored(hashes, { parent, medium: e.medium });
      inputs.push({
        kind: 'stored',
        source: e.src,
        ts,
        hashes,
        parent,
        medium: e.medium,
        blockSize: 16,
      });
    } else if (e.kind === 'removed') {
      ev = removed(hashes, e.medium);
      inputs.push({ kind: 'removed', source: e.src, ts, hashes, medium: e.medium });
    } else if (e.kind === 'cleared') {
      ev = { type: 'AllBlocksCleared', medium: null };
      inputs.push({ kind: 'cleared', source: e.src });
    } else {
      records.push(reset(e.src, ts));
      inputs.push({ kind: 'reset', source: e.src });
    }
    if (ev) records.push(batch(e.src, ts, [ev]));
  }
  return { records, inputs };
}

/** Every figure of the analysis' report equals the oracle's on the same stream. */
function expectAgrees(a: CacheAnalysis, inputs: OracleInput[], T: number): void {
  const rep = a.report();
  const o = oracle(inputs, T);
  expect(rep.totals.storedBlocks).toBe(o.storedBlocks);
  expect(rep.totals.removedBlocks).toBe(o.removedBlocks);
  expect(rep.totals.newStores).toBe(o.cells.reduce((n, c) => n + c.newStores, 0));
  expect(rep.totals.announcedHits).toBe(o.cells.reduce((n, c) => n + c.hits, 0));
  expect(rep.totals.restores).toBe(o.cells.reduce((n, c) => n + c.distances.length, 0));
  expect(rep.totals.thrashRestores).toBe(o.cells.reduce((n, c) => n + c.thrash, 0));
  expect(rep.totals.residentBlocks).toBe(o.cells.reduce((n, c) => n + c.resident, 0));
  for (const c of o.cells) {
    const w = rep.whatIf.find((x) => x.source === c.source && x.medium === c.medium)!;
    expect(w.peakResident).toBe(c.peak);
    expect(w.restores).toBe(c.distances.length);
    for (const p of [...w.points, ...w.curve])
      expect(p.extraHits).toBe(extraHits(c.distances, p.extraBlocks));
  }
  for (const l of rep.lifetimes) {
    const s = o.lifetimes.get(l.medium) ?? [];
    expect(l.count).toBe(s.length);
    expect(l.p50S).toBe(nearestRank(s, 0.5));
    expect(l.p99S).toBe(nearestRank(s, 0.99));
  }
  expect(rep.crossSource.duplicateStores).toBe(o.duplicateStores);
  expect(rep.crossSource.routingRegretBlocks).toBe(o.regretBlocks);
  expect(rep.crossSource.routingRegretTokens).toBe(o.regretTokens);
  expect(rep.crossSource.sharedBlocksNow).toBe(o.sharedNow);
  expect(rep.crossSource.duplicateBlocksNow).toBe(o.duplicateNow);
  for (const cell of rep.crossSource.overlap)
    expect(cell.blocks).toBe(o.overlap.get(`${cell.sourceA}\u0000${cell.sourceB}`));
  expect(rep.hotPrefixes.map((h) => [h.hash, h.fanOut, h.storeEvents])).toEqual(
    o.hot.slice(0, 10).map((h) => [h.hash, h.fanOut, h.storeEvents]),
  );
}

describe('the analysis against a brute-force oracle', () => {
  it('agrees on every figure for random streams', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 120 }),
        fc.integer({ min: 0, max: 30 }),
        (evs, T) => {
          const { records, inputs } = toStreams(evs);
          const a = new CacheAnalysis({ thrashWindowS: T });
          for (const r of records) a.apply(r);
          expectAgrees(a, inputs, T);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees on every figure when the holder slots pass one word of bits (30-ish sources holding blocks first)', () => {
    // Removed sources give their holder slots back, so only sources there at once widen the bit
    // sets: 28..34 sources holding some of the same hashes put s1..s3 on both sides of 32.
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 120 }),
        fc.integer({ min: 28, max: 34 }),
        (evs, heldFirst) => {
          const { records, inputs } = toStreams(evs);
          const a = new CacheAnalysis();
          const first: OracleInput[] = [];
          for (let i = 0; i < heldFirst; i += 1) {
            const hashes = [`${i % 16}`, `${(i * 7) % 16}`];
            a.apply(batch(`held${i}`, 1, [stored(hashes)]));
            first.push({
              kind: 'stored',
              source: `held${i}`,
              ts: 1,
              hashes,
              parent: null,
              medium: 'GPU',
              blockSize: 16,
            });
          }
          for (const r of records) a.apply(r);
          expectAgrees(a, [...first, ...inputs], 60);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('agrees on every figure after 30-ish sources came and went (their slots reused)', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 120 }),
        fc.integer({ min: 28, max: 34 }),
        (evs, removedFirst) => {
          const { records, inputs } = toStreams(evs);
          const a = new CacheAnalysis();
          for (let i = 0; i < removedFirst; i += 1) {
            a.apply(batch(`gone${i}`, 1, [stored([`${i % 16}`])]));
            a.removeSource(`gone${i}`);
          }
          for (const r of records) a.apply(r);
          expectAgrees(a, inputs, 60);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('has extra_hits(k) non-decreasing in k and never above the re-stores', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 150 }), (evs) => {
        const a = new CacheAnalysis();
        for (const r of toStreams(evs).records) a.apply(r);
        for (const w of a.report().whatIf) {
          const pts = [...w.points, ...w.curve].sort((x, y) => x.extraBlocks - y.extraBlocks);
          for (let i = 1; i < pts.length; i++)
            expect(pts[i]!.extraHits).toBeGreaterThanOrEqual(pts[i - 1]!.extraHits);
          for (const p of pts) expect(p.extraHits).toBeLessThanOrEqual(w.restores);
          // The curve reaches past the farthest re-store: its end counts every one.
          expect(w.curve[w.curve.length - 1]!.extraHits).toBe(w.restores);
          expect(w.curve.length).toBeLessThanOrEqual(41);
        }
      }),
      { numRuns: 300 },
    );
  });
});
