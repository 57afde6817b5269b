// A lone batch far from its source's clock (a year ahead, at 1.0) is charted at that clock's
// time and marked; it no longer moves the charts' now away from every other batch. A clock that
// really moved (two batches agree) is followed. The figures keep every raw ts. A source whose clock
// is off the others' (its offset, measured live) is charted on theirs.
import { describe, expect, it } from 'vitest';
import { ChartClock, JUMP_SEC } from '../../shared/chart-clock';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, removed, stored } from './helpers';

const T0 = 1_767_225_600;
const YEAR = 365 * 86400;

describe('ChartClock', () => {
  it('holds a lone batch far off, charts it at the clock, and names it once the next one is back', () => {
    const c = new ChartClock();
    expect(c.place('a', T0)).toMatchObject({ at: T0, held: false, outlier: null });
    expect(c.place('a', T0 + 1)).toMatchObject({ at: T0 + 1, held: false, outlier: null });
    expect(c.place('a', T0 + YEAR)).toMatchObject({ at: T0 + 1, held: true, outlier: null });
    expect(c.place('a', T0 + 2)).toMatchObject({ at: T0 + 2, held: false, outlier: T0 + YEAR });
    // Behind, likewise.
    expect(c.place('a', 1.0)).toMatchObject({ at: T0 + 2, held: true, outlier: null });
    expect(c.place('a', T0 + 3)).toMatchObject({ at: T0 + 3, held: false, outlier: 1.0 });
  });

  it('follows a clock that moved: the second batch there confirms the first', () => {
    const c = new ChartClock();
    c.place('a', T0);
    const later = T0 + 2 * JUMP_SEC;
    expect(c.place('a', later)).toMatchObject({ at: T0, held: true, outlier: null });
    expect(c.place('a', later + 1)).toMatchObject({ at: later + 1, held: false, outlier: null });
    expect(c.place('a', later + 2).at).toBe(later + 2);
    // Within JUMP_SEC is no jump: an engine idle for 50 minutes is charted where it resumes.
    expect(c.place('a', later + JUMP_SEC - 1)).toMatchObject({ held: false });
  });

  it('keeps each source its own clock, and a forgotten one starts afresh', () => {
    const c = new ChartClock();
    c.place('a', T0);
    c.place('b', 16_000);
    expect(c.place('b', 16_001).at).toBe(16_001);
    expect(c.place('a', T0 + 1).at).toBe(T0 + 1);
    c.forget('a');
    expect(c.place('a', 5).at).toBe(5);
    expect(c.peek('b', T0)).toBe(16_001);
  });
});

describe('ChartClock with a clock offset', () => {
  it("charts a source at its ts plus its offset, its outliers held at its clock's charted time", () => {
    const c = new ChartClock();
    c.setOffset('b', 30);
    expect(c.place('b', T0 - 30)).toEqual({
      at: T0,
      streamAt: T0 - 30,
      held: false,
      outlier: null,
    });
    expect(c.peek('b', T0 - 29)).toBe(T0 + 1);
    expect(c.place('b', T0 + YEAR)).toEqual({
      at: T0,
      streamAt: T0 - 30,
      held: true,
      outlier: null,
    });
    // A forgotten clock (a restart) keeps its offset until it is set again; a removal drops it.
    c.forget('b');
    expect(c.place('b', T0 - 20).at).toBe(T0 + 10);
    c.setOffset('b', 0);
    expect(c.place('b', T0 - 19).at).toBe(T0 - 19);
    c.setOffset('b', 30);
    c.remove('b');
    expect(c.place('b', T0 - 18).at).toBe(T0 - 18);
  });

  it('leaves a time where its offset would take it past the event times (a hostile file)', () => {
    const c = new ChartClock();
    c.setOffset('h', 1e11);
    expect(c.place('h', 1e11).at).toBe(1e11);
    c.setOffset('g', 1e11 - 10);
    expect(c.place('g', 5).at).toBe(1e11 - 5);
  });
});

describe('CacheModel charts with sources whose clocks disagree', () => {
  it("puts a source 30 s behind on the others' time once its offset is set: its rates are now's", () => {
    const feed = (m: CacheModel, offset: number) => {
      m.setClockOffset('b', offset);
      for (let s = 0; s < 60; s += 1) {
        m.apply(batch([stored('a', T0 + s, [`a${s}`])]));
        m.apply(batch([stored('b', T0 + s - 30, [`b${s}`, `c${s}`])]));
      }
    };
    const skewed = new CacheModel();
    feed(skewed, 0);
    // Charted on its own clock, b has been silent for 30 s and started 30 s before a.
    expect(skewed.kpis(T0 + 60).storedPerSec).toBeCloseTo(1, 5);
    expect(skewed.series({ rangeSec: null, maxPoints: 600 }).points).toHaveLength(90);
    const aligned = new CacheModel();
    feed(aligned, 30);
    expect(aligned.kpis(T0 + 60).storedPerSec).toBeCloseTo(3, 5);
    const all = aligned.series({ rangeSec: null, maxPoints: 600 });
    expect(all.points).toHaveLength(60);
    expect(all.points[0]?.t).toBe(T0);
    expect(all.points.at(-1)?.storedBy).toEqual([1, 2]);
    // The figures and the forest keep b's own times.
    expect(aligned.kpis().storedBlocks).toBe(180);
    const newestOfB = aligned.events({ source: 'b', offset: 0, limit: 1 }).rows[0];
    expect(newestOfB?.ts).toBe(T0 + 59 - 30);
    // Its age is read on the charts' axis, where the now is (the event detail's "1 s ago").
    expect(newestOfB?.chartTs).toBe(T0 + 59);
    expect(aligned.events({ source: 'a', offset: 0, limit: 1 }).rows[0]?.chartTs).toBe(T0 + 59);
    // A click on the charts at T0 + 10 opens the events before it on their axis: b's at its own
    // T0 - 21 to T0 - 20 among them, not its events up to T0 + 9 of its clock (40 s later).
    const before = aligned.events({ source: 'b', offset: 0, limit: 5, beforeTs: T0 + 10 });
    expect(before.total).toBe(10);
    expect(before.rows[0]?.ts).toBe(T0 + 9 - 30);
    // Before the first of them, the log holds nothing: said on the charts' axis too.
    const small = new CacheModel({ ringSize: 8 });
    feed(small, 30);
    expect(small.events({ offset: 0, limit: 5, beforeTs: T0 + 50 }).heldFromTs).toBe(T0 + 56);
  });
});

describe('CacheModel charts with a batch stamped a year ahead', () => {
  /** A source storing two blocks a second for `secs` seconds from T0, removing the older one. */
  function feed(m: CacheModel, from: number, to: number, future?: number): void {
    for (let s = from; s < to; s += 1) {
      const ts = s === future ? T0 + s + YEAR : T0 + s;
      m.apply(batch([stored('a', ts, [`${2 * s + 1}`, `${2 * s + 2}`])]));
      if (s > 0) m.apply(batch([removed('a', T0 + s + 0.5, [`${2 * s - 1}`])]));
    }
  }

  it('keeps the live window and its rates on the stream, counts every block, and marks it', () => {
    const m = new CacheModel();
    feed(m, 0, 120, 60);
    // Now is the stream's latest, not a year on.
    expect(m.nowTs()).toBe(T0 + 119.5);
    const live = m.series({ rangeSec: 60, maxPoints: 60 }, T0 + 121);
    expect(live.points.length).toBeGreaterThan(50);
    expect(live.points.at(-1)?.stored).toBe(2);
    expect(m.kpis(T0 + 121).storedPerSec).toBeCloseTo(2, 5);
    // Every block counts, the outlier's too.
    expect(m.kpis().storedBlocks).toBe(240);
    const all = m.series({ rangeSec: null, maxPoints: 600 });
    expect(all.points[0]?.t).toBe(T0);
    expect(all.points.at(-1)?.t).toBe(T0 + 119);
    expect(all.points.reduce((n, p) => n + p.stored, 0)).toBe(240);
    const clock = all.markers.filter((k) => k.kind === 'clock');
    expect(clock).toHaveLength(1);
    expect(clock[0]?.detail).toContain('365 days ahead of its stream');
  });

  it('charts a lone batch stamped at 1.0 at the stream, not in a bin of its own', () => {
    const m = new CacheModel();
    for (let s = 0; s < 10; s += 1)
      m.apply(batch([stored('a', s === 5 ? 1.0 : T0 + s, [`${s + 1}`])]));
    const all = m.series({ rangeSec: null, maxPoints: 600 });
    expect(all.points[0]?.t).toBe(T0);
    expect(all.points).toHaveLength(10);
    // Its block counts in the second of the batch before it: no level at a second of its own.
    expect(all.points.map((p) => p.resident[0])).toEqual([1, 2, 3, 4, 6, 6, 7, 8, 9, 10]);
  });
});
