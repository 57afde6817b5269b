// Hand-computed cases for every definition of DESIGN.md's "Analysis".
import { describe, expect, it } from 'vitest';
import { toAnalyzeJson } from '../../electron/analysis/analyze-json';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { MAX_BINS, RestoreBins } from '../../electron/analysis/restore-series';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, reset, stored } from './helpers';

function run(records: IngestRecord[], opts?: ConstructorParameters<typeof CacheAnalysis>[0]) {
  const a = new CacheAnalysis(opts);
  for (const r of records) a.apply(r);
  return a.report();
}

const whatIf = (r: ReturnType<typeof run>, source: string, medium = 'GPU') => {
  const w = r.whatIf.find((x) => x.source === source && x.medium === medium);
  if (!w) throw new Error(`no what-if row for ${source} ${medium}`);
  return w;
};

describe('new stores and announced hits', () => {
  it('counts a store of a resident hash as an announced hit, and the hit ratio over both', () => {
    const r = run([batch('e', 1, [stored(['a', 'b'])]), batch('e', 2, [stored(['a', 'c'])])]);
    expect(r.totals.storedBlocks).toBe(4);
    expect(r.totals.newStores).toBe(3);
    expect(r.totals.announcedHits).toBe(1);
    expect(r.totals.hitRatio).toBe(0.25);
    expect(r.totals.residentBlocks).toBe(3);
  });

  it('has no hit ratio where no hit was announced', () => {
    const r = run([batch('e', 1, [stored(['a', 'b'])])]);
    expect(r.totals.hitRatio).toBeNull();
  });

  it('treats the same hash twice in one event as a new store then a hit', () => {
    const r = run([batch('e', 1, [stored(['a', 'a'])])]);
    expect(r.totals.newStores).toBe(1);
    expect(r.totals.announcedHits).toBe(1);
  });
});

describe('ghost distance, re-stores and thrash', () => {
  // R = {a,b,c,d} at 0; removals a@1 b@2 c@3 -> G = [a,b,c]; b re-stored @4 (d=1: c is newer);
  // d removed @5 -> G = [a,c,d]; c re-stored @6 (d=1: d is newer); a re-stored @100 (d=1: d).
  const stream = (): IngestRecord[] => [
    batch('e', 0, [stored(['a', 'b', 'c', 'd'])]),
    batch('e', 1, [removed(['a'])]),
    batch('e', 2, [removed(['b'])]),
    batch('e', 3, [removed(['c'])]),
    batch('e', 4, [stored(['b'])]),
    batch('e', 5, [removed(['d'])]),
    batch('e', 6, [stored(['c'])]),
    batch('e', 100, [stored(['a'])]),
  ];

  it('measures distances with interleaved removals and re-stores', () => {
    const r = run(stream());
    expect(r.totals.restores).toBe(3);
    // b: 4-2 = 2 s, c: 6-3 = 3 s are within 60 s; a: 100-1 = 99 s is not.
    expect(r.totals.thrashRestores).toBe(2);
    const w = whatIf(r, 'e');
    expect(w.peakResident).toBe(4);
    expect(w.capacityBasis).toBe('peak-resident');
    // k = ceil(f x 4): 1, 1, 2, 4, 8; every distance is 1.
    expect(w.points.map((p) => p.extraBlocks)).toEqual([1, 1, 2, 4, 8]);
    expect(w.points.map((p) => p.extraHits)).toEqual([0, 0, 3, 3, 3]);
    expect(w.ghosts).toBe(1);
  });

  it('takes the thrash window from the options', () => {
    const r = run(stream(), { thrashWindowS: 2 });
    expect(r.thrashWindowS).toBe(2);
    expect(r.totals.thrashRestores).toBe(1);
  });

  it('counts thrash for every preset window at once (gaps of 2 s, 3 s and 99 s)', () => {
    const r = run(stream());
    expect(r.thrashByWindow).toEqual([
      { windowS: 5, thrashRestores: 2 },
      { windowS: 10, thrashRestores: 2 },
      { windowS: 30, thrashRestores: 2 },
      { windowS: 60, thrashRestores: 2 },
      { windowS: 120, thrashRestores: 3 },
      { windowS: 300, thrashRestores: 3 },
      { windowS: 600, thrashRestores: 3 },
    ]);
  });

  it('counts a re-store exactly at the window edge as thrash', () => {
    const r = run(
      [
        batch('e', 0, [stored(['a'])]),
        batch('e', 10, [removed(['a'])]),
        batch('e', 70, [stored(['a'])]),
      ],
      {},
    );
    expect(r.totals.thrashRestores).toBe(1);
  });

  it('puts a re-store at distance 0 when nothing was removed after it', () => {
    const r = run([
      batch('e', 0, [stored(['a', 'b'])]),
      batch('e', 1, [removed(['b', 'a'])]),
      batch('e', 2, [stored(['a'])]),
    ]);
    const w = whatIf(r, 'e');
    // G = [b, a]: a is the newest, d = 0; with k = ceil(0.1 x 2) = 1 it would have been kept.
    expect(w.points[0]).toEqual({ extraFraction: 0.1, extraBlocks: 1, extraHits: 1 });
  });

  it('uses the engine capacity where it is known, and says so', () => {
    const a = new CacheAnalysis({ capacities: [{ source: 'e', medium: 'GPU', blocks: 40 }] });
    for (const r of stream()) a.apply(r);
    const w = whatIf(a.report(), 'e');
    expect(w.capacityBasis).toBe('engine');
    expect(w.capacityBlocks).toBe(40);
    expect(w.points.map((p) => p.extraBlocks)).toEqual([4, 10, 20, 40, 80]);
  });

  it('keeps a per-second series of re-stores and thrash re-stores', () => {
    const r = run(stream());
    expect(r.restoreSeries.startS).toBe(4);
    expect(r.restoreSeries.binS).toBe(1);
    expect(r.restoreSeries.restores[0]).toBe(1);
    expect(r.restoreSeries.restores[2]).toBe(1);
    expect(r.restoreSeries.restores[96]).toBe(1);
    expect(r.restoreSeries.thrashRestores[96]).toBe(0);
    expect(r.restoreSeries.restores.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('keeps the thrash series for every window the Insights offer (a: 99 s after its eviction)', () => {
    const r = run(stream());
    const s = r.restoreSeries;
    const at = (windowS: number): number[] =>
      s.thrashByWindow.find((w) => w.windowS === windowS)?.thrashRestores ?? [];
    // The report's own window (60 s) is the series drawn without a pick.
    expect(at(60)).toEqual(s.thrashRestores);
    expect([at(5)[0], at(5)[2], at(5)[96]]).toEqual([1, 1, 0]);
    expect([at(120)[0], at(120)[2], at(120)[96]]).toEqual([1, 1, 1]);
    // Each window's bins add up to that window's total.
    for (const w of r.thrashByWindow)
      expect(at(w.windowS).reduce((a, b) => a + b, 0)).toBe(w.thrashRestores);
  });
});

describe('removals and clears', () => {
  it('ignores the removal of a hash that is not resident (no lifetime, no ghost)', () => {
    const r = run([
      batch('e', 0, [removed(['x'])]),
      batch('e', 5, [stored(['x'])]),
      batch('e', 6, [removed(['x', 'x'])]),
    ]);
    expect(r.totals.removedBlocks).toBe(3);
    expect(r.totals.restores).toBe(0);
    expect(r.lifetimes).toEqual([expect.objectContaining({ medium: 'GPU', count: 1, p50S: 1 })]);
  });

  it('empties R and G on AllBlocksCleared: no lifetimes, no ghosts, no re-store after', () => {
    const r = run([
      batch('e', 0, [stored(['a', 'b'])]),
      batch('e', 1, [removed(['a'])]),
      batch('e', 2, [cleared()]),
      batch('e', 3, [stored(['a', 'b'])]),
    ]);
    expect(r.totals.restores).toBe(0);
    expect(r.totals.newStores).toBe(4);
    expect(r.lifetimes[0]?.count).toBe(1);
    expect(r.totals.residentBlocks).toBe(2);
    expect(r.input.clears).toBe(1);
    expect(whatIf(r, 'e').peakResident).toBe(2);
  });

  it('starts a restarted publisher again like AllBlocksCleared, and counts the reset', () => {
    const r = run([
      batch('e', 0, [stored(['a', 'b'])]),
      batch('e', 1, [removed(['a'])]),
      reset('e'),
      batch('e', 3, [stored(['a', 'b'])]),
    ]);
    expect(r.totals.restores).toBe(0);
    expect(r.totals.announcedHits).toBe(0);
    expect(r.sources[0]?.resets).toBe(1);
    expect(r.input.resets).toBe(1);
  });

  it('clears only the source that cleared', () => {
    const r = run([
      batch('x', 0, [stored(['a'])]),
      batch('y', 0, [stored(['b'])]),
      batch('y', 1, [removed(['b'])]),
      batch('x', 2, [cleared()]),
      batch('y', 3, [stored(['b'])]),
    ]);
    expect(r.totals.restores).toBe(1);
    expect(r.sources.map((s) => [s.source, s.residentBlocks])).toEqual([
      ['x', 0],
      ['y', 1],
    ]);
  });
});

describe('media', () => {
  it('keeps the same hash on two media apart', () => {
    const r = run([
      batch('e', 0, [stored(['a'], { medium: 'GPU' }), stored(['a'], { medium: 'CPU' })]),
      batch('e', 1, [removed(['a'], 'GPU')]),
      batch('e', 2, [stored(['a'], { medium: 'GPU' })]),
      batch('e', 4, [removed(['a'], 'CPU')]),
    ]);
    expect(r.totals.newStores).toBe(3);
    expect(r.totals.announcedHits).toBe(0);
    expect(whatIf(r, 'e', 'GPU').restores).toBe(1);
    expect(whatIf(r, 'e', 'CPU').restores).toBe(0);
    expect(whatIf(r, 'e', 'CPU').ghosts).toBe(1);
    const life = Object.fromEntries(r.lifetimes.map((l) => [l.medium, [l.count, l.p50S]]));
    expect(life).toEqual({ GPU: [1, 1], CPU: [1, 4] });
  });

  it('names an event without a medium "unspecified"', () => {
    const r = run([batch('e', 0, [stored(['a'], { medium: null })])]);
    expect(r.whatIf[0]?.medium).toBe('unspecified');
  });
});

describe('lifetimes', () => {
  it('gives nearest-rank percentiles and puts a sample equal to a bound in the next bucket', () => {
    const r = run([
      batch('e', 0, [stored(['a', 'b', 'c', 'd'])]),
      batch('e', 1, [removed(['a'])]),
      batch('e', 2, [removed(['b'])]),
      batch('e', 3, [removed(['c'])]),
      batch('e', 5, [removed(['d'])]),
    ]);
    const l = r.lifetimes[0]!;
    expect([l.count, l.p50S, l.p90S, l.p99S]).toEqual([4, 2, 5, 5]);
    expect(l.histogram.slice(0, 5).map((b) => [b.upperS, b.count])).toEqual([
      [1, 0],
      [2, 1],
      [5, 2],
      [10, 1],
      [30, 0],
    ]);
    expect(l.histogram).toHaveLength(12);
    expect(l.histogram[11]).toEqual({ upperS: null, count: 0 });
    expect(l.estimate).toBe(false);
  });

  it('measures a lifetime from the new store, not from a later re-announcement', () => {
    const r = run([
      batch('e', 0, [stored(['a'])]),
      batch('e', 7, [stored(['a'])]),
      batch('e', 10, [removed(['a'])]),
    ]);
    expect(r.lifetimes[0]?.p50S).toBe(10);
  });
});

describe('cross-source figures', () => {
  it('counts duplicate stores and routing regret in the order events were received', () => {
    const r = run([
      batch('s1', 0, [stored(['a', 'b', 'c'])]),
      // new stores a b x c: a, b, c are held by s1 (3 duplicates); the leading run is a, b.
      batch('s2', 1, [stored(['a', 'b', 'x', 'c'])]),
      batch('s1', 2, [stored(['a'])]),
      batch('s3', 3, [stored(['a', 'b', 'c'], { blockSize: 32 })]),
    ]);
    expect(r.crossSource.duplicateStores).toBe(6);
    expect(r.crossSource.routingRegretBlocks).toBe(5);
    expect(r.crossSource.routingRegretTokens).toBe(2 * 16 + 3 * 32);
    expect(r.sources.map((s) => s.duplicateStores)).toEqual([0, 3, 3]);
    expect(r.crossSource.sharedBlocksNow).toBe(3);
    expect(r.crossSource.duplicateBlocksNow).toBe(6);
    expect(r.crossSource.overlap.map((c) => [c.sourceA, c.sourceB, c.blocks])).toEqual([
      ['s1', 's2', 3],
      ['s1', 's3', 3],
      ['s2', 's3', 3],
    ]);
  });

  it('charges the duplicate to whichever source stored second', () => {
    const r = run([batch('s2', 0, [stored(['a'])]), batch('s1', 1, [stored(['a'])])]);
    expect(r.sources.map((s) => [s.source, s.duplicateStores])).toEqual([
      ['s2', 0],
      ['s1', 1],
    ]);
  });

  it('takes the routing regret from one source, not from the union of several', () => {
    const r = run([
      batch('s1', 0, [stored(['a'])]),
      batch('s2', 0, [stored(['b'])]),
      batch('s3', 1, [stored(['a', 'b'])]),
      batch('s4', 1, [stored(['a', 'b', 'q'])]),
    ]);
    // s3: s1 covers a only, s2 nothing first: 1. s4: s3 holds a and b: 2.
    expect(r.crossSource.routingRegretBlocks).toBe(3);
  });

  it('skips announced hits in the run of new stores', () => {
    const r = run([
      batch('s2', 0, [stored(['h'])]),
      batch('s1', 0, [stored(['a', 'b'])]),
      batch('s2', 1, [stored(['h', 'a', 'b'])]),
    ]);
    // s2's new stores are a, b (h is a hit), both held by s1.
    expect(r.crossSource.routingRegretBlocks).toBe(2);
  });

  it('counts a hash held in two media of one source once, until both let it go', () => {
    const r = run([
      batch('s1', 0, [stored(['a'], { medium: 'GPU' }), stored(['a'], { medium: 'CPU' })]),
      batch('s2', 0, [stored(['a'])]),
      batch('s1', 1, [removed(['a'], 'GPU')]),
    ]);
    expect(r.crossSource.sharedBlocksNow).toBe(1);
    expect(r.crossSource.duplicateBlocksNow).toBe(1);
    const after = run([
      batch('s1', 0, [stored(['a'], { medium: 'GPU' }), stored(['a'], { medium: 'CPU' })]),
      batch('s2', 0, [stored(['a'])]),
      batch('s1', 1, [removed(['a'], 'GPU'), removed(['a'], 'CPU')]),
    ]);
    expect(after.crossSource.sharedBlocksNow).toBe(0);
    expect(after.crossSource.overlap[0]?.blocks).toBe(0);
  });

  it('drops a cleared source from what is shared now', () => {
    const r = run([
      batch('s1', 0, [stored(['a', 'b'])]),
      batch('s2', 0, [stored(['a', 'b'])]),
      batch('s1', 1, [cleared()]),
    ]);
    expect(r.crossSource.sharedBlocksNow).toBe(0);
    expect(r.crossSource.duplicateStores).toBe(2);
  });
});

describe('hot prefixes', () => {
  it('ranks by fan-out, then events, then the hash as text, with depth where known', () => {
    const r = run([
      batch('e', 0, [stored(['r1', 'p'])]),
      // p: fan-out 2 (x, y), 3 events.
      batch('e', 1, [stored(['x'], { parent: 'p' }), stored(['y'], { parent: 'p' })]),
      batch('e', 1, [stored(['x', 'z'], { parent: 'p' })]),
      // "10" and "9": fan-out 2, 2 events each: "10" sorts first as text.
      batch('e', 2, [stored(['m'], { parent: '9' }), stored(['n'], { parent: '9' })]),
      batch('e', 2, [stored(['m'], { parent: '10' }), stored(['n'], { parent: '10' })]),
      // q: fan-out 1, 2 events (the same first hash twice).
      batch('e', 3, [stored(['k'], { parent: 'q' }), stored(['k', 'l'], { parent: 'q' })]),
    ]);
    expect(r.hotPrefixes.map((h) => [h.hash, h.fanOut, h.storeEvents])).toEqual([
      ['p', 2, 3],
      ['10', 2, 2],
      ['9', 2, 2],
      ['q', 1, 2],
    ]);
    // p is the second block of a chain stored from its root.
    expect(r.hotPrefixes[0]).toMatchObject({ depthBlocks: 2, depthTokens: 32 });
    expect(r.hotPrefixes[1]).toMatchObject({ depthBlocks: null, depthTokens: null });
  });
});

describe('a clock that steps back', () => {
  it('takes no lifetime from a removal before its store, and counts it', () => {
    const r = run([
      batch('e', 100, [stored(['a', 'b'])]),
      batch('e', 0, [removed(['a'])]), // the clock stepped back 100 s
      batch('e', 103, [removed(['b'])]),
    ]);
    expect(r.input.backwardRemovals).toBe(1);
    const gpu = r.lifetimes.find((l) => l.medium === 'GPU');
    expect([gpu?.count, gpu?.p50S]).toEqual([1, 3]);
    expect(toAnalyzeJson(r).input).toMatchObject({ backward_removals: 1 });
    expect(toAnalyzeJson(run([batch('e', 1, [stored(['a'])])])).input).not.toHaveProperty(
      'backward_removals',
    );
  });
});

describe('hot prefix depth', () => {
  it("takes no depth from an offload tier's store (no parent, no tokens), only from chains", () => {
    const offload = stored(['c', 'b', 'a'], { medium: 'CPU' });
    offload.token_count = 0;
    const r = run([
      // The CPU tier announces a, b, c leaf first (as vLLM's connector may) before the GPU chain.
      batch('e', 0, [offload]),
      batch('e', 1, [stored(['a', 'b', 'c'])]),
      batch('e', 2, [stored(['x'], { parent: 'c' }), stored(['y'], { parent: 'c' })]),
    ]);
    expect(r.hotPrefixes[0]).toMatchObject({ hash: 'c', fanOut: 2, depthBlocks: 3 });
  });
});

describe('bad input', () => {
  it('skips and counts events whose ts is not finite or absurd, and keeps going', () => {
    const r = run([
      batch('e', 0, [stored(['a'])]),
      batch('e', Number.NaN, [removed(['a'])]),
      batch('e', Number.POSITIVE_INFINITY, [stored(['b'])]),
      batch('e', 1e300, [removed(['a'])]),
      batch('e', 2, [stored(['a'])]),
      batch('e', 3, [removed(['a'])]),
      batch('e', -1e300, [stored(['a'])]),
    ]);
    expect(r.input.badTsEvents).toBe(4);
    expect(r.totals.newStores).toBe(1);
    expect(r.totals.announcedHits).toBe(1);
    expect(r.lifetimes[0]?.p50S).toBe(3);
    expect(r.totals.restores).toBe(0);
  });

  it('widens the bins of the re-store series instead of growing it past its bound', () => {
    const bins = new RestoreBins();
    bins.add(1000, 1, true, 20);
    bins.add(1000 + 1e9, 1, false, 3600);
    const s = bins.snapshot();
    expect(s.restores.length).toBeLessThanOrEqual(MAX_BINS);
    expect(s.binS).toBeGreaterThan(1);
    const total = (a: number[]): number => a.reduce((x, y) => x + y, 0);
    expect(total(s.restores)).toBe(2);
    expect(total(s.thrashRestores)).toBe(1);
    // Each window's bins are widened with the rest.
    for (const w of s.thrashByWindow) {
      expect(w.thrashRestores).toHaveLength(s.restores.length);
      expect(total(w.thrashRestores)).toBe(w.windowS >= 20 ? 1 : 0);
    }
  });

  it('counts gaps, undecoded messages and event errors without applying them', () => {
    const r = run([
      { k: 'gap', rec: { source: 'e', from: 3, to: 5, recovered: 1, lost: 2, at: 0 } },
      { k: 'undecoded', rec: { source: 'e', seq: 7, bytes: 10, error: 'bad', at: 0 } },
      { k: 'event-error', rec: { source: 'e', seq: 8, idx: 1, error: 'bad' } },
    ]);
    expect(r.input).toMatchObject({ gaps: 1, lostBatches: 2, undecoded: 1, eventErrors: 1 });
    expect(r.sources.map((s) => s.source)).toEqual(['e']);
  });

  it('refuses a negative thrash window and a capacity that is not a whole number of blocks', () => {
    expect(() => new CacheAnalysis({ thrashWindowS: -1 })).toThrow(/thrash window/);
    const a = new CacheAnalysis();
    expect(() => a.setCapacity('e', 'GPU', 1.5)).toThrow(/whole number/);
  });

  it('keeps the dp rank of a source', () => {
    const r = run([batch('cap#1', 0, [stored(['a'])], 1)]);
    expect(r.sources[0]?.dpRank).toBe(1);
    expect(r.whatIf[0]?.dpRank).toBe(1);
  });
});

describe('a removed source', () => {
  it('leaves every total, the router view and the what-if table', () => {
    const a = new CacheAnalysis();
    for (const r of [
      batch('a', 0, [stored(['x', 'y'])]),
      batch('b', 1, [stored(['x', 'z'])]),
      batch('b', 2, [removed(['z'])]),
      batch('b', 3, [stored(['z'])]),
    ])
      a.apply(r);
    expect(a.report().crossSource.sharedBlocksNow).toBe(1);
    a.removeSource('b');
    const r = a.report();
    expect(r.sources.map((s) => s.source)).toEqual(['a']);
    expect(r.whatIf.map((w) => w.source)).toEqual(['a']);
    expect([r.totals.newStores, r.totals.restores, r.totals.residentBlocks]).toEqual([2, 0, 2]);
    expect([r.crossSource.sharedBlocksNow, r.crossSource.duplicateBlocksNow]).toEqual([0, 0]);
    // Back again under the same name: it starts from nothing, and holdings stay exact.
    a.apply(batch('b', 4, [stored(['y'])]));
    expect(a.report().crossSource.sharedBlocksNow).toBe(1);
    expect(a.report().sources.find((s) => s.source === 'b')?.newStores).toBe(1);
  });
});

describe("a removed source's losses", () => {
  it('leave the input counts with it: the Insights say only what the sources there are lost', () => {
    const a = new CacheAnalysis();
    const gap = (source: string, lost: number): IngestRecord => ({
      k: 'gap',
      rec: { source, from: 3, to: 3 + lost, recovered: 1, lost, at: 0 },
    });
    for (const r of [
      batch('a', 0, [stored(['x'])]),
      batch('b', 0, [stored(['y'])]),
      gap('a', 7),
      gap('b', 9),
      gap('a', 2),
    ])
      a.apply(r);
    expect([a.report().input.gaps, a.report().input.lostBatches]).toEqual([3, 18]);
    a.removeSource('a');
    expect([a.report().input.gaps, a.report().input.lostBatches]).toEqual([1, 9]);
    // Back under the same name, its new losses count from nothing.
    a.apply(gap('a', 4));
    a.removeSource('b');
    expect([a.report().input.gaps, a.report().input.lostBatches]).toEqual([1, 4]);
  });
});

describe("a removed source's input", () => {
  it('leaves every input count with it, as its events leave the view: the same file reads the same in both', () => {
    const a = new CacheAnalysis();
    const records: IngestRecord[] = [
      batch('a', 0, [stored(['x']), stored(['y'], { parent: 'x' })]),
      batch('b', 0, [stored(['z'])]),
      batch('b', 1, [{ type: 'AllBlocksCleared', medium: null }]),
      { k: 'undecoded', rec: { source: 'b', seq: 9, bytes: 4, error: 'bad', at: 1 } },
      { k: 'event-error', rec: { source: 'b', seq: 10, idx: 0, error: 'bad' } },
      { k: 'reset', rec: { source: 'b', previousSeq: 10, at: 2 } },
      batch('a', 3, [removed(['y'])]),
    ];
    for (const r of records) a.apply(r);
    expect(a.report().input).toMatchObject({ batches: 4, events: 5, clears: 1, undecoded: 1 });
    a.removeSource('b');
    // What is left is what source a alone gives.
    const alone = new CacheAnalysis();
    for (const r of records) {
      const source = r.k === 'batch' ? r.meta.source : r.rec.source;
      if (source === 'a') alone.apply(r);
    }
    expect(a.report().input).toEqual(alone.report().input);
    expect(a.report().input).toMatchObject({ batches: 2, events: 3, clears: 0, resets: 0 });
  });
});

describe('a removed source, in the merged figures', () => {
  const of = (source: string, t0: number): IngestRecord[] => [
    batch(source, t0, [stored([`${source}r`]), stored([`${source}c`], { parent: `${source}r` })]),
    batch(source, t0 + 2, [removed([`${source}c`])]),
    batch(source, t0 + 3, [stored([`${source}c`], { parent: `${source}r` })]),
    batch(source, t0 + 70, [removed([`${source}c`, `${source}r`], 'GPU')]),
    batch(source, t0 + 100, [stored([`${source}r`])]),
  ];
  const merged = (r: ReturnType<typeof run>) => ({
    lifetimes: r.lifetimes,
    thrash: r.thrashByWindow,
    reuse: r.reuse,
    series: r.restoreSeries,
    hot: r.hotPrefixes,
    totals: r.totals,
  });

  it('takes its lifetimes, thrash, reuse, re-store series and hot prefixes out with it', () => {
    const a = new CacheAnalysis();
    // b first, so the re-store series of b alone starts where the merged one does.
    const records = [...of('b', 0), ...of('a', 1)].sort(
      (x, y) => (x.k === 'batch' ? x.meta.ts : 0) - (y.k === 'batch' ? y.meta.ts : 0),
    );
    for (const r of records) a.apply(r);
    expect(a.report().lifetimes[0]?.count).toBe(6);
    a.removeSource('a');
    expect(merged(a.report())).toEqual(merged(run(of('b', 0))));
    expect(a.report().lifetimes[0]?.count).toBe(3);
  });

  it('leaves nothing behind when it was the only one: no lifetimes, no series, no hot prefix', () => {
    const a = new CacheAnalysis();
    for (const r of of('a', 0)) a.apply(r);
    expect(a.report().restoreSeries.restores).not.toEqual([]);
    a.removeSource('a');
    const r = a.report();
    expect(r.lifetimes).toEqual([]);
    expect(r.thrashByWindow.every((w) => w.thrashRestores === 0)).toBe(true);
    expect(r.restoreSeries).toMatchObject({
      startS: null,
      binS: 1,
      restores: [],
      thrashRestores: [],
    });
    for (const w of r.restoreSeries.thrashByWindow) expect(w.thrashRestores).toEqual([]);
    expect(r.hotPrefixes).toEqual([]);
    expect(r.reuse).toEqual({ storesWithParent: 0, reuseStores: 0 });
  });
});

describe('reuse, thrash, lifetimes and sharing (the figures the model used to keep)', () => {
  it('measures them on the stream the model was tested with', () => {
    const r = run(
      [
        batch('a', 0, [stored(['r'])]),
        batch('a', 1, [stored(['c'], { parent: 'r' })]), // parent resident: reuse
        batch('a', 3, [removed(['c'])]), // lifetime 2
        batch('a', 4, [stored(['c'], { parent: 'r' })]), // re-store 1 s after removal: thrash
        batch('a', 10, [removed(['c'])]), // lifetime 6
        batch('a', 30, [stored(['c'], { parent: 'x' })]), // re-store 20 s later, parent not resident
        batch('b', 31, [stored(['r'])]),
      ],
      { thrashWindowS: 5 },
    );
    expect(r.reuse).toEqual({ storesWithParent: 3, reuseStores: 2 });
    expect(r.totals.restores).toBe(2);
    expect(r.totals.thrashRestores).toBe(1);
    const gpu = r.lifetimes.find((l) => l.medium === 'GPU');
    expect(gpu?.count).toBe(2);
    expect([gpu?.p50S, gpu?.p90S]).toEqual([2, 6]);
    expect(r.crossSource.sharedBlocksNow).toBe(1);
  });
});
