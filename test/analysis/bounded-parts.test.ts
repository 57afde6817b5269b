// The bounded parts past their exact range: the lifetime sketch and the hot-prefix table.
import { describe, expect, it } from 'vitest';
import { HotPrefixes, MAX_PARENTS } from '../../electron/analysis/hot-prefixes';
import { EXACT_SAMPLES, LifetimeStats } from '../../electron/analysis/lifetime-stats';

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

describe('hot prefixes past the table bound', () => {
  it('keeps the hottest parents and says the table is no longer exact', () => {
    const h = new HotPrefixes();
    for (let c = 0; c < 5; c++) h.add('hot', `child${c}`, 3, 16);
    for (let i = 0; i < MAX_PARENTS + 10; i++) h.add(`p${i}`, 'x', null, 16);
    expect(h.exact).toBe(false);
    expect(h.top(1)[0]).toMatchObject({ hash: 'hot', fanOut: 5, storeEvents: 5, depthBlocks: 3 });
    expect(h.top(0)).toEqual([]);
  });
});
