// The bounded parts past their exact range: the lifetime sketch and the hot-prefix table.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HotPrefixes, MAX_PARENTS } from '../../electron/analysis/hot-prefixes';
import { EXACT_SAMPLES, LifetimeStats, selectNth } from '../../electron/analysis/lifetime-stats';

describe('exact lifetime percentiles', () => {
  it('selects the value a sort puts at each rank, duplicates and negative times included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 40 }), { minLength: 1, maxLength: 300 }),
        fc.nat(),
        (xs, r) => {
          const a = Float64Array.from(xs, (x) => x / 4);
          const sorted = a.slice().sort();
          const k = r % a.length;
          selectNth(a, 0, a.length - 1, k);
          expect(a[k]).toBe(sorted[k]);
          for (let i = 0; i < k; i++) expect(a[i]).toBeLessThanOrEqual(a[k]!);
          for (let i = k + 1; i < a.length; i++) expect(a[i]).toBeGreaterThanOrEqual(a[k]!);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives nearest-rank p50 / p90 / p99 below the bound, and new ones after another sample', () => {
    const l = new LifetimeStats();
    const xs = Array.from({ length: 1001 }, (_, i) => (i * 7919) % 1001);
    for (const x of xs) l.add(x);
    const sorted = [...xs].sort((a, b) => a - b);
    const s = l.summary();
    expect([s.p50, s.p90, s.p99]).toEqual(
      [0.5, 0.9, 0.99].map((p) => sorted[Math.ceil(p * 1001) - 1]),
    );
    expect(s.estimate).toBe(false);
    // Twenty large samples move p99 up: the picks are not kept past a new sample.
    for (let i = 0; i < 20; i++) l.add(5000);
    expect(l.summary().p99).toBe(5000);
  });
});

describe('lifetimes past the exact bound', () => {
  it('switches to the sketch and stays within 1% of the exact nearest-rank percentiles', () => {
    const l = new LifetimeStats();
    const n = EXACT_SAMPLES + 200_000;
    const all = new Float64Array(n);
    let x = 12345;
    for (let i = 0; i < n; i++) {
      // A spread from milliseconds to hours, and some zeros (stored and removed in one batch).
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const v = i % 97 === 0 ? 0 : 0.001 * Math.exp((x / 2 ** 32) * 16);
      all[i] = v;
      l.add(v);
    }
    const s = l.summary();
    expect(s.estimate).toBe(true);
    expect(s.count).toBe(n);
    all.sort();
    for (const [p, got] of [
      [0.5, s.p50],
      [0.9, s.p90],
      [0.99, s.p99],
    ] as const) {
      const exact = all[Math.ceil(p * n) - 1]!;
      expect(Math.abs((got as number) - exact) / exact).toBeLessThan(0.01);
    }
    expect(s.histogram.reduce((a, b) => a + b.count, 0)).toBe(n);
  });
});

describe('lifetimes merged from their sources', () => {
  it('gives what one medium fed every sample gives, exact within the bound and sketched past it', () => {
    const feed = (l: LifetimeStats, from: number, n: number) => {
      for (let i = 0; i < n; i++) l.add(((from + i) % 1000) + 0.5);
    };
    const one = new LifetimeStats();
    const a = new LifetimeStats();
    const b = new LifetimeStats();
    feed(one, 0, 300);
    feed(a, 0, 100);
    feed(b, 100, 200);
    expect(LifetimeStats.merge([a, b]).summary()).toEqual(one.summary());
    // Past the bound: a is still exact (no sketch built), b is not.
    const half = EXACT_SAMPLES / 2;
    const big = new LifetimeStats();
    const c = new LifetimeStats();
    const d = new LifetimeStats();
    feed(big, 0, half + EXACT_SAMPLES + 10);
    feed(c, 0, half);
    feed(d, half, EXACT_SAMPLES + 10);
    const m = LifetimeStats.merge([c, d]).summary();
    expect(m).toEqual(big.summary());
    expect(m.estimate).toBe(true);
  });

  it('keeps EXACT_SAMPLES exactly between the sources of a medium, not per source', () => {
    const feed = (l: LifetimeStats, from: number, n: number) => {
      for (let i = 0; i < n; i++) l.add(((from + i) % 1000) + 0.5);
    };
    const pool = { n: 0 };
    const parts = [0, 1, 2].map(() => new LifetimeStats(pool));
    const one = new LifetimeStats();
    const third = EXACT_SAMPLES * 0.6;
    for (const [i, p] of parts.entries()) {
      feed(p, i * third, third);
      feed(one, i * third, third);
    }
    // Three sources of 600,000 each would have kept 1.8 M samples, one per source's bound.
    const held = parts.reduce((sum, p) => sum + p.exactSamples, 0);
    expect(held).toBeLessThanOrEqual(EXACT_SAMPLES);
    expect(LifetimeStats.merge(parts).summary()).toEqual(one.summary());
    // A removed source's samples leave the pool: two small sources later are exact again.
    const fresh = { n: 0 };
    const a = new LifetimeStats(fresh);
    const gone = new LifetimeStats(fresh);
    feed(gone, 0, EXACT_SAMPLES - 10);
    gone.leavePool();
    feed(a, 0, 100);
    expect(a.exactSamples).toBe(100);
    expect(a.summary().estimate).toBe(false);
  });
});

describe('hot prefixes past the table bound', () => {
  it('keeps the hottest parents and says the table is no longer exact', () => {
    const h = new HotPrefixes();
    for (let c = 0; c < 5; c++) h.add('hot', `child${c}`, 3, 16, 0);
    for (let i = 0; i < MAX_PARENTS + 10; i++) h.add(`p${i}`, 'x', null, 16, 0);
    expect(h.exact).toBe(false);
    expect(h.top(1)[0]).toMatchObject({ hash: 'hot', fanOut: 5, storeEvents: 5, depthBlocks: 3 });
    expect(h.top(0)).toEqual([]);
  });
});
