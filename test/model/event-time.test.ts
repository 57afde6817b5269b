import { describe, expect, it } from 'vitest';
import { BinTable } from '../../electron/model/bin-table';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, stored } from './helpers';

const T0 = 1_767_225_600;

describe('BinTable against times that are not event times', () => {
  it.each([1e16, -1e16, Infinity, -Infinity, NaN])(
    'refuses and counts a write at %s, and keeps its span',
    (bad) => {
      const t = new BinTable();
      const row = t.addRow('sum');
      t.add(row, T0, 1);
      t.add(row, bad, 5);
      t.set(row, bad, 5);
      expect(t.rejected).toBe(2);
      expect(t.span()).toEqual({ first: T0, last: T0 });
      expect(Array.from(t.read(row, T0, T0))).toEqual([1]);
    },
  );

  it('reads nothing for a bound that is not an event time, and never more than maxBins', () => {
    const t = new BinTable(100);
    const row = t.addRow('sum');
    t.add(row, T0, 1);
    expect(t.read(row, -Infinity, Infinity)).toHaveLength(0);
    expect(t.read(row, NaN, T0)).toHaveLength(0);
    expect(t.read(row, 0, 1e16)).toHaveLength(0);
    // A range of 1e11 seconds is cut to the newest 100: it would otherwise allocate 800 GB.
    const wide = t.read(row, -1e11, T0);
    expect(wide).toHaveLength(100);
    expect(wide[99]).toBe(1);
    expect(t.sum(row, -Infinity, Infinity)).toBe(1);
    expect(t.sum(row, NaN, NaN)).toBe(0);
  });

  it('keeps sane-but-odd clocks: relative seconds, negative seconds, a far-future epoch', () => {
    for (const sec of [0.5, -3600, 9.9e10]) {
      const t = new BinTable();
      const row = t.addRow('sum');
      t.add(row, sec, 2);
      expect(t.rejected).toBe(0);
      const span = t.span();
      expect(span?.first).toBe(Math.floor(sec));
      expect(Array.from(t.read(row, span!.first, span!.last))).toEqual([2]);
    }
  });
});

describe('CacheModel series with an absurd time among the records', () => {
  it.each([1e16, Infinity, NaN])(
    'a record at ts %s that reached the model leaves the series bounded and finite',
    (bad) => {
      const m = new CacheModel();
      m.apply(batch([stored('a', T0, ['1'])]));
      m.apply(batch([stored('a', bad, ['2'])]));
      m.apply(batch([stored('a', T0 + 10, ['3'])]));
      for (const rangeSec of [null, 60, 1e9]) {
        const s = m.series({ rangeSec, maxPoints: 600 });
        expect(s.points.length).toBeGreaterThan(0);
        expect(s.points.length).toBeLessThanOrEqual(600);
        expect(s.points.every((p) => Number.isFinite(p.t))).toBe(true);
        expect(s.points.at(-1)?.t).toBeLessThanOrEqual(T0 + 10);
      }
    },
  );

  it('a query that skipped the schema (huge maxPoints, infinite range) stays within the bounds', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', T0, ['1'])]));
    m.apply(batch([stored('a', T0 + 40_000, ['2'])]));
    const s = m.series({ rangeSec: Infinity, maxPoints: 1e12 });
    expect(s.points.length).toBeLessThanOrEqual(5000);
    expect(s.points[0]?.t).toBeLessThanOrEqual(T0);
    const nan = m.series({ rangeSec: NaN, maxPoints: NaN });
    expect(nan.points.length).toBeLessThanOrEqual(600);
  });
});
