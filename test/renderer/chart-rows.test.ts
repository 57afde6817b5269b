import { describe, expect, it } from 'vitest';
import type { Series } from '../../shared/api-types';
import {
  chartEmptyText,
  drawOrder,
  pruneHidden,
  rateLines,
  rateRows,
  residentLines,
  residentRows,
  residentSourceRows,
  toggleHidden,
  visibleMarkers,
  drawnMarkers,
} from '../../renderer/lib/chart-rows';

const series: Series = {
  binSec: 1,
  sources: ['a', 'b'],
  media: ['GPU', 'CPU'],
  points: [
    {
      t: 10,
      stored: 5,
      removed: 1,
      storedBy: [3, 2],
      removedBy: [1, 0],
      resident: [100, 7],
      residentBy: [60, 47],
    },
    {
      t: 11,
      stored: 8,
      removed: 4,
      storedBy: [8, 0],
      removedBy: [2, 2],
      resident: [104, 9],
      residentBy: [70, 43],
    },
  ],
  markers: [
    { t: 5, kind: 'gap', source: 'a', detail: 'before range' },
    { t: 11.5, kind: 'clear', source: 'b', detail: 'cleared' },
    { t: 10.2, kind: 'gap', source: 'a', detail: 'seq 4..6' },
  ],
};

describe('chart rows', () => {
  it('maps points to rate rows with totals and per-source columns', () => {
    const rows = rateRows(series);
    expect(rows[0]).toEqual({
      t: 10,
      stored: 5,
      removed: 1,
      'stored.0': 3,
      'stored.1': 2,
      'removed.0': 1,
      'removed.1': 0,
    });
    expect(rateLines(series).map((l) => l.key)).toEqual([
      'stored',
      'removed',
      'stored.0',
      'removed.0',
      'stored.1',
      'removed.1',
    ]);
  });

  it('gives a source added later no value before it came (the tooltip leaves it out, not 0)', () => {
    const later: Series = { ...series, since: [null, 11] };
    const [first, second] = rateRows(later);
    expect(first).not.toHaveProperty('stored.1');
    expect(first).not.toHaveProperty('removed.1');
    expect(first).toMatchObject({ 'stored.0': 3 });
    expect(second).toMatchObject({ 'stored.1': 0, 'removed.1': 2 });
    const [r0, r1] = residentSourceRows(later);
    expect(r0).not.toHaveProperty('residentBy.1');
    expect(r1).toMatchObject({ 'residentBy.1': 43 });
  });

  it('labels per-source lines by source name, falling back to the id', () => {
    const labels = rateLines(series, new Map([['a', 'engine-a']])).map((l) => l.label);
    expect(labels).toEqual([
      'stored/s (all)',
      'removed/s (all)',
      'stored/s engine-a',
      'removed/s engine-a',
      'stored/s b',
      'removed/s b',
    ]);
  });

  it('gives each source one color, stored dashed and removed dotted, drawn under the totals', () => {
    const lines = rateLines(series);
    const perSource = lines.filter((l) => !l.total);
    expect(perSource.map((l) => [l.color, l.dash])).toEqual([
      [0, 'dashed'],
      [0, 'dotted'],
      [1, 'dashed'],
      [1, 'dotted'],
    ]);
    const order = drawOrder(lines).map((l) => l.key);
    expect(order.slice(-2)).toEqual(['stored', 'removed']);
    expect(order).toHaveLength(lines.length);
  });

  it('says plainly why a chart is empty', () => {
    expect(chartEmptyText(0, true, false)).toBe('Waiting for the first events…');
    expect(chartEmptyText(null, false, false)).toBe('Waiting for the first events…');
    expect(chartEmptyText(0, true, true)).toBe('This session holds no events.');
    expect(chartEmptyText(0, true, false, 0)).toBe(
      'Nothing is connected: add a connection (or the demo engine) under Connections.',
    );
    expect(chartEmptyText(0, true, true, 0)).toBe('This session holds no events.');
    expect(chartEmptyText(12, false, false)).toBe('Loading…');
    expect(chartEmptyText(12, true, false)).toBe('No events in this time range.');
  });

  it('leaves out per-source lines when there is one source (they would repeat the total)', () => {
    const one = { ...series, sources: ['a'] };
    expect(rateLines(one)).toHaveLength(2);
    expect(Object.keys(rateRows(one)[0] ?? {})).toEqual(['t', 'stored', 'removed']);
  });

  it('maps residency per medium with labels', () => {
    expect(residentRows(series)[1]).toEqual({ t: 11, 'resident.0': 104, 'resident.1': 9 });
    expect(residentLines(series).map((l) => l.label)).toEqual(['resident GPU', 'resident CPU']);
  });

  it('keeps only markers inside the plotted span, in time order', () => {
    expect(visibleMarkers(series).map((m) => m.t)).toEqual([10.2, 11.5]);
    expect(visibleMarkers({ ...series, points: [] })).toEqual([]);
  });

  it('draws every gap and restart, then the newest clears, when there are too many to draw', () => {
    const m = (t: number, kind: 'clear' | 'gap' | 'reset') => ({
      t,
      kind,
      source: 'a',
      detail: kind,
    });
    // A gap, then a clear a second for two minutes: capped by time alone, the gap went.
    const many = [m(0.5, 'gap'), ...Array.from({ length: 120 }, (_, i) => m(1 + i, 'clear'))];
    const drawn = drawnMarkers(many, 60);
    expect(drawn).toHaveLength(60);
    expect(drawn[0]).toEqual(m(0.5, 'gap'));
    expect(drawn.slice(1).map((x) => x.t)).toEqual(Array.from({ length: 59 }, (_, i) => 62 + i));
    expect(drawnMarkers(many.slice(0, 10), 60)).toEqual(many.slice(0, 10));
    // More rare ones than room: the newest of them.
    const rare = Array.from({ length: 5 }, (_, i) => m(i, i % 2 ? 'reset' : 'gap'));
    expect(drawnMarkers([...rare, m(9, 'clear')], 3).map((x) => x.t)).toEqual([2, 3, 4]);
  });

  it('draws a restart over the gap of the same second (the last drawn is on top)', () => {
    const m = (kind: 'clear' | 'gap' | 'reset') => ({ t: 11, kind, source: 'a', detail: kind });
    const same = { ...series, markers: [m('reset'), m('gap'), m('clear')] };
    expect(visibleMarkers(same).map((x) => x.kind)).toEqual(['clear', 'gap', 'reset']);
  });

  it('toggles series visibility and forgets keys of lines that are gone', () => {
    let hidden: Set<string> = toggleHidden(new Set(), 'stored.1');
    expect(hidden.has('stored.1')).toBe(true);
    hidden = toggleHidden(hidden, 'removed');
    hidden = toggleHidden(hidden, 'removed');
    expect([...hidden]).toEqual(['stored.1']);
    const pruned = pruneHidden(hidden, rateLines({ ...series, sources: ['a'] }));
    expect(pruned.size).toBe(0);
  });
});
