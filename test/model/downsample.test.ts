import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketStarts,
  chooseFactor,
  downsampleLast,
  downsampleMean,
} from '../../shared/downsample';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, removed, stored } from './helpers';

describe('downsampling', () => {
  it('never exceeds maxPoints and conserves totals for any range and alignment', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 3000 }),
        fc.integer({ min: 1, max: 700 }),
        (first, values, maxPoints) => {
          const k = chooseFactor(first, first + values.length - 1, maxPoints);
          const mean = downsampleMean(values, first, k);
          const last = downsampleLast(values, first, k);
          expect(mean.length).toBeLessThanOrEqual(maxPoints);
          expect(last.length).toBe(mean.length);
          expect(bucketStarts(first, values.length, k)).toHaveLength(mean.length);
          const total = values.reduce((a, b) => a + b, 0);
          expect(mean.reduce((a, b) => a + b * k, 0)).toBeCloseTo(total, 6);
          expect(last.at(-1)).toBe(values.at(-1));
        },
      ),
    );
  });

  it('gives model series at most maxPoints points whose rate times binSec sums to the true block counts', () => {
    const m = new CacheModel();
    let storedTotal = 0;
    for (let t = 0; t < 5000; t += 7) {
      const hashes = Array.from({ length: (t % 5) + 1 }, (_, i) => `${t}-${i}`);
      storedTotal += hashes.length;
      m.apply(batch([stored(t % 2 ? 'a' : 'b', 1_700_000_000 + t + 0.3, hashes)]));
      if (t % 3 === 0)
        m.apply(batch([removed('a', 1_700_000_000 + t + 0.5, [hashes[0] as string])]));
    }
    for (const maxPoints of [600, 100, 7]) {
      const s = m.series({ rangeSec: null, maxPoints });
      expect(s.points.length).toBeLessThanOrEqual(maxPoints);
      const sum = s.points.reduce((a, p) => a + p.stored * s.binSec, 0);
      expect(sum).toBeCloseTo(storedTotal, 6);
      const removedSum = s.points.reduce((a, p) => a + p.removed * s.binSec, 0);
      expect(removedSum).toBeCloseTo(m.kpis().removedBlocks, 6);
      expect(s.points.at(-1)?.resident.reduce((a, b) => a + b, 0)).toBe(m.kpis().residentBlocks);
    }
    const recent = m.series({ rangeSec: 60 });
    expect(recent.binSec).toBe(1);
    expect(recent.points).toHaveLength(60);
    // Empty seconds are zeros, not gaps.
    expect(recent.points.filter((p) => p.stored === 0).length).toBeGreaterThan(40);
  });
});
