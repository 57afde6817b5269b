// The zoomed window's arithmetic, the per-source residency lines, and #events?at= links.
import { describe, expect, it } from 'vitest';
import type { Series } from '../../shared/api-types';
import { residentSourceLines, residentSourceRows } from '../../renderer/lib/chart-rows';
import {
  dragWindow,
  panWindow,
  resizeWindow,
  seriesQuery,
  spanFraction,
  spanTime,
} from '../../renderer/lib/chart-zoom';
import { formatDeepLink, parseDeepLink } from '../../renderer/lib/deep-link';

const span = { from: 1000, to: 2000 };

describe('a zoomed window', () => {
  it('asks the series API for its span, ending at its end, at 600 points', () => {
    expect(seriesQuery(null, 300)).toEqual({ rangeSec: 300, maxPoints: 600 });
    expect(seriesQuery({ from: 1200.5, to: 1300 }, 300)).toEqual({
      rangeSec: 100,
      toTs: 1300,
      maxPoints: 600,
    });
  });

  it('takes a drag either way, to the end of its last bin; a click is no zoom', () => {
    expect(dragWindow(1300, 1200, 5)).toEqual({ from: 1200, to: 1305 });
    expect(dragWindow(1200, 1200, 1)).toBeNull();
    // Two neighbouring points of a coarse chart are a zoom: at 1 s per point it has 20 points.
    expect(dragWindow(1200, 1210, 10)).toEqual({ from: 1200, to: 1220 });
    expect(dragWindow(1210, 1210, 10)).toBeNull();
  });

  it('pans inside the session keeping its width, and resizes to at least two seconds', () => {
    const w = { from: 1100, to: 1200 };
    expect(panWindow(w, 50, span)).toEqual({ from: 1150, to: 1250 });
    expect(panWindow(w, -500, span)).toEqual({ from: 1000, to: 1100 });
    expect(panWindow(w, 5000, span)).toEqual({ from: 1900, to: 2000 });
    expect(panWindow({ from: 0, to: 5000 }, 10, span)).toEqual(span);
    expect(resizeWindow(w, 'from', 1199.5, span)).toEqual({ from: 1198, to: 1200 });
    expect(resizeWindow(w, 'to', 3000, span)).toEqual({ from: 1100, to: 2000 });
    expect(resizeWindow(w, 'from', 0, span)).toEqual({ from: 1000, to: 1200 });
  });

  it('maps times to the scrubber and back', () => {
    expect(spanFraction(1250, span)).toBe(0.25);
    expect(spanFraction(0, span)).toBe(0);
    expect(spanFraction(9999, span)).toBe(1);
    expect(spanTime(0.25, span)).toBe(1250);
  });
});

describe('resident blocks per source', () => {
  const series: Series = {
    binSec: 1,
    sources: ['a', 'b'],
    media: ['GPU'],
    markers: [],
    points: [
      {
        t: 1,
        stored: 0,
        removed: 0,
        storedBy: [0, 0],
        removedBy: [0, 0],
        resident: [5],
        residentBy: [3, 2],
      },
    ],
  };

  it('draws each source by name and their sum on top', () => {
    expect(residentSourceRows(series)).toEqual([
      { t: 1, 'residentBy.0': 3, 'residentBy.1': 2, residentAll: 5 },
    ]);
    const lines = residentSourceLines(series, new Map([['a', 'engine-a']]));
    expect(lines.map((l) => [l.key, l.label, l.total])).toEqual([
      ['residentAll', 'resident (all)', true],
      ['residentBy.0', 'resident engine-a', false],
      ['residentBy.1', 'resident b', false],
    ]);
  });

  it('draws one source as the one bold line, without a sum', () => {
    const one: Series = {
      ...series,
      sources: ['a'],
      points: [{ ...series.points[0]!, residentBy: [3] }],
    };
    expect(residentSourceRows(one)).toEqual([{ t: 1, 'residentBy.0': 3 }]);
    expect(residentSourceLines(one).map((l) => l.total)).toEqual([true]);
  });
});

describe('a link to the events at a time', () => {
  it('reads and writes #events?at=TS, and ignores a time elsewhere or out of range', () => {
    expect(parseDeepLink('#events?at=1767225712.5')).toEqual({ view: 'events', at: 1767225712.5 });
    expect(parseDeepLink(formatDeepLink({ view: 'events', at: 12.25 }))).toEqual({
      view: 'events',
      at: 12.25,
    });
    expect(parseDeepLink('#events?at=nope')).toEqual({ view: 'events' });
    expect(parseDeepLink('#events?at=1e300')).toEqual({ view: 'events' });
    expect(parseDeepLink('#overview?at=12')).toEqual({ view: 'overview' });
  });
});
