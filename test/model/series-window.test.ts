// A zoomed chart's series (a window ending at toTs), resident blocks per source over time, and the
// event log before a chart's point in time.
import { describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { EventRing } from '../../electron/model/event-ring';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, stored } from './helpers';

const T0 = 1_700_000_000;

/** Two sources over `secs` seconds: a stores 3 blocks a second, b 1 a second (b removes its first at +5). */
function twoSources(secs: number): CacheModel {
  const m = new CacheModel();
  for (let i = 0; i < secs; i += 1) {
    m.apply(batch([stored('a', T0 + i + 0.5, [`a${i}-0`, `a${i}-1`, `a${i}-2`])]));
    m.apply(batch([stored('b', T0 + i + 0.5, [`b${i}`])]));
    if (i === 5) m.apply(batch([removed('b', T0 + i + 0.6, ['b0'])]));
  }
  return m;
}

describe('a series window', () => {
  it('ends at toTs and spans rangeSec seconds before it', () => {
    const m = twoSources(100);
    const s = m.series({ rangeSec: 10, toTs: T0 + 40 });
    expect(s.points.map((p) => p.t)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + 30 + i));
    expect(s.points.every((p) => p.stored === 4)).toBe(true);
  });

  it('keeps at most maxPoints points for a wide window, as for any range', () => {
    const m = twoSources(3000);
    const s = m.series({ rangeSec: 2500, toTs: T0 + 2800, maxPoints: 600 });
    expect(s.points.length).toBeLessThanOrEqual(600);
    expect(s.points.length).toBeGreaterThan(400);
    const first = s.points[0];
    const last = s.points.at(-1);
    expect(first && first.t).toBeGreaterThanOrEqual(T0 + 300 - s.binSec);
    expect(last && last.t + s.binSec).toBeLessThanOrEqual(T0 + 2800);
  });

  it('live, never draws past the last complete second even when toTs is later', () => {
    const m = twoSources(20);
    const s = m.series({ rangeSec: 10, toTs: T0 + 1000 }, T0 + 19.8);
    expect(s.points.at(-1)?.t).toBe(T0 + 18);
  });

  it('keeps markers inside the window only', () => {
    const m = twoSources(50);
    m.apply(batch([cleared('a', T0 + 45.5)]));
    expect(m.series({ rangeSec: 10, toTs: T0 + 40 }).markers).toEqual([]);
    expect(m.series({ rangeSec: 10, toTs: T0 + 50 }).markers.map((x) => x.kind)).toEqual(['clear']);
  });
});

describe('resident blocks per source', () => {
  it('follows each source over time, in the order of Series.sources', () => {
    const m = twoSources(10);
    const s = m.series({ rangeSec: null });
    expect(s.sources).toEqual(['a', 'b']);
    expect(s.points[0]?.residentBy).toEqual([3, 1]);
    // b removed one block in second 5: its level drops by one there, a's does not.
    expect(s.points[4]?.residentBy).toEqual([15, 5]);
    expect(s.points[5]?.residentBy).toEqual([18, 5]);
    expect(s.points.at(-1)?.residentBy).toEqual([30, 9]);
    // Per source adds up to the per-medium total (one medium here).
    for (const p of s.points) expect(p.residentBy[0]! + p.residentBy[1]!).toBe(p.resident[0]);
  });

  it('falls to zero on a clear and on a publisher restart of that source only', () => {
    const m = twoSources(10);
    m.apply(batch([cleared('a', T0 + 10.5)]));
    m.apply(batch([stored('a', T0 + 11.5, ['y'])]));
    // A restart is marked at the latest event time, as the per-medium levels are.
    const reset: IngestRecord = {
      k: 'reset',
      rec: { source: 'b', at: T0 + 11.6, previousSeq: 41 },
    };
    m.apply(reset);
    m.apply(batch([stored('a', T0 + 12.5, ['x'])]));
    const s = m.series({ rangeSec: null });
    const at = (t: number) => s.points.find((p) => p.t === t)?.residentBy;
    expect(at(T0 + 10)).toEqual([0, 9]);
    expect(at(T0 + 11)).toEqual([1, 0]);
    expect(at(T0 + 12)).toEqual([2, 0]);
  });
});

describe('the event log at a chart point', () => {
  it('holds only the events before that time, newest first, with the other filters', () => {
    const ring = new EventRing(100);
    for (let i = 0; i < 20; i++) ring.push(stored(i % 2 ? 'a' : 'b', T0 + i + 0.5, [`h${i}`]));
    const page = ring.query({ offset: 0, limit: 3, beforeTs: T0 + 10 });
    expect(page.total).toBe(10);
    expect(page.rows.map((r) => r.ts)).toEqual([T0 + 9.5, T0 + 8.5, T0 + 7.5]);
    const a = ring.query({ offset: 0, limit: 50, beforeTs: T0 + 10, source: 'a' });
    expect(a.rows.map((r) => r.ts)).toEqual([9, 7, 5, 3, 1].map((i) => T0 + i + 0.5));
  });
});
