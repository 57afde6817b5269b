import { describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, removed, stored } from './helpers';

const T0 = 1_700_000_000;

/** A model with `perSec[i]` blocks stored in second T0 + i (each at .2 and .7 of the second). */
function modelWith(perSec: number[]): CacheModel {
  const m = new CacheModel();
  perSec.forEach((n, i) => {
    const half = Math.floor(n / 2);
    const a = Array.from({ length: half }, (_, j) => `${i}-a${j}`);
    const b = Array.from({ length: n - half }, (_, j) => `${i}-b${j}`);
    if (a.length) m.apply(batch([stored('s', T0 + i + 0.2, a)]));
    if (b.length) m.apply(batch([stored('s', T0 + i + 0.7, b)]));
  });
  return m;
}

describe('a live series', () => {
  it('ends at the last complete second, not the one still filling', () => {
    const m = modelWith([10, 10, 10, 4]);
    // Now is 0.8 s into second 3: second 3 is not drawn, second 2 is the last point.
    const s = m.series({ rangeSec: 60 }, T0 + 3.8);
    expect(s.points.at(-1)?.t).toBe(T0 + 2);
    expect(s.points.at(-1)?.stored).toBe(10);
    // Without a clock (an opened file) the series ends at the latest data.
    expect(m.series({ rangeSec: 60 }).points.at(-1)?.t).toBe(T0 + 3);
  });

  it('moves on with the clock while the stream is silent, the rates falling to zero', () => {
    const m = modelWith([8, 8, 8]);
    m.apply(batch([removed('s', T0 + 2.9, ['2-a0'])]));
    const s = m.series({ rangeSec: 60 }, T0 + 20.5);
    const last = s.points.at(-1);
    expect(last?.t).toBe(T0 + 19);
    expect(last?.stored).toBe(0);
    expect(last?.removed).toBe(0);
    // Residency holds its level through the silence.
    expect(last?.resident).toEqual([23]);
    expect(s.points.find((p) => p.t === T0 + 1)?.stored).toBe(8);
    // Silent for longer than the range: a flat line at zero over the range, at the clock.
    const later = m.series({ rangeSec: 60 }, T0 + 500.5);
    expect(later.points).toHaveLength(60);
    expect(later.points.at(-1)?.t).toBe(T0 + 499);
    expect(later.points.every((p) => p.stored === 0)).toBe(true);
    expect(later.points.at(-1)?.resident).toEqual([23]);
  });

  it('draws only whole buckets when seconds are merged', () => {
    // 3,000 seconds at 6 blocks/s into 600 points: 5 s per point.
    const m = modelWith(Array.from({ length: 3000 }, () => 6));
    for (const now of [T0 + 2999.5, T0 + 2997.3, T0 + 3003.9]) {
      const s = m.series({ rangeSec: null, maxPoints: 600 }, now);
      expect(s.binSec).toBeGreaterThan(1);
      const last = s.points.at(-1);
      if (!last) throw new Error('no points');
      // The last bucket ends at or before the last complete second.
      expect(last.t + s.binSec).toBeLessThanOrEqual(Math.floor(now));
      // Inside the data, every whole bucket is the true rate: no false plunge at the end.
      if (last.t + s.binSec <= T0 + 3000) expect(last.stored).toBe(6);
      expect(s.points.length).toBeLessThanOrEqual(600);
    }
  });

  it('is empty until the first second is complete and settled', () => {
    const m = modelWith([5]);
    expect(m.series({ rangeSec: 60 }, T0 + 0.9).points).toEqual([]);
    expect(m.series({ rangeSec: 60 }, T0 + 1.1).points).toEqual([]);
    expect(m.series({ rangeSec: 60 }, T0 + 1.3).points.at(-1)?.stored).toBe(5);
  });
});

describe('live rates', () => {
  it('count whole seconds only, so the second still filling does not pull them down', () => {
    const m = modelWith([10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 2]);
    // 0.5 s into second 11, which holds 2 blocks so far: the window is seconds 1..10, 10 each.
    expect(m.kpis(T0 + 11.5).storedPerSec).toBe(10);
    expect(m.sourceStats('s', T0 + 11.5).storedPerSec).toBe(10);
    // Silent for a while: the window moves on with the clock and the rate falls.
    expect(m.kpis(T0 + 17.5).storedPerSec).toBe((4 * 10 + 2) / 10);
    expect(m.kpis(T0 + 40).storedPerSec).toBe(0);
    expect(m.kpis(T0 + 0.5).storedPerSec).toBe(0);
  });
});
