// A removed source leaves the merged figures entirely (DESIGN "Faults": a removed source leaves
// every total): a hot prefix several sources named keeps only the others' fan-out and events, and
// the re-store series' bins are as fine as the sources left need, as if it had never been there.
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { MAX_BINS } from '../../electron/analysis/restore-series';
import type { IngestRecord } from '../../shared/records';
import { batch, removed, stored } from './helpers';

const run = (records: IngestRecord[]) => {
  const a = new CacheAnalysis();
  for (const r of records) a.apply(r);
  return a;
};

describe('a removed source, in the hot prefixes', () => {
  // Both name parent p: a with first hashes x and y (2 events), b with y and z (3 events).
  const a = [
    batch('a', 0, [stored(['x'], { parent: 'p' })]),
    batch('a', 1, [stored(['y'], { parent: 'p' })]),
  ];
  const b = [
    batch('b', 2, [stored(['y'], { parent: 'p' })]),
    batch('b', 3, [stored(['z'], { parent: 'p' })]),
    batch('b', 4, [stored(['z', 'w'], { parent: 'p' })]),
    batch('b', 5, [stored(['q'], { parent: 'r' })]),
  ];
  const hot = (an: CacheAnalysis) =>
    an.report().hotPrefixes.map((h) => [h.hash, h.fanOut, h.storeEvents]);

  it('keeps only the fan-out and events of the sources left', () => {
    const both = run([...a, ...b]);
    expect(hot(both)).toEqual([
      ['p', 3, 5],
      ['r', 1, 1],
    ]);
    both.removeSource('a');
    expect(hot(both)).toEqual(hot(run(b)));
    expect(hot(both)).toEqual([
      ['p', 2, 3],
      ['r', 1, 1],
    ]);
  });

  it('is its own again once one source is left: it counts on, and leaves with it', () => {
    const both = run([...a, ...b]);
    both.removeSource('b');
    expect(hot(both)).toEqual(hot(run(a)));
    both.apply(batch('a', 6, [stored(['v'], { parent: 'p' })]));
    expect(hot(both)).toEqual([['p', 3, 3]]);
    both.removeSource('a');
    expect(hot(both)).toEqual([]);
  });
});

describe('a removed source, in the re-store series', () => {
  /** Re-stores of one hash of `source`, one at each of these times. */
  const restoresAt = (source: string, times: number[]): IngestRecord[] =>
    times.flatMap((t) => [
      batch(source, t - 1, [removed([`${source}h`])]),
      batch(source, t, [stored([`${source}h`])]),
    ]);

  it('draws the series in the bins the sources left need, not the ones it made', () => {
    // a spans past MAX_BINS seconds (its bins merged to 4 s); b re-stores within ten seconds.
    const a = [batch('a', 0, [stored(['ah'])]), ...restoresAt('a', [2, 2 + 2 * MAX_BINS + 10])];
    const b = [batch('b', 3, [stored(['bh'])]), ...restoresAt('b', [5, 6, 9])];
    const both = run([...a, ...b].sort(byTs));
    expect(both.report().restoreSeries.binS).toBe(4);
    both.removeSource('a');
    const left = both.report().restoreSeries;
    expect(left.binS).toBe(1);
    // From b's first re-store (not a's, at 2, whose empty bins went with it): 5, 6 and 9.
    expect(left).toMatchObject({
      startS: 5,
      binS: 1,
      restores: [1, 1, 0, 0, 1],
      thrashRestores: [1, 1, 0, 0, 1],
    });
    // Every window's series is merged again the same way (each re-store is 1 s after its removal).
    for (const w of left.thrashByWindow) expect(w.thrashRestores).toEqual([1, 1, 0, 0, 1]);
    expect(left).toEqual(run(b).report().restoreSeries);
    expect(left.restores.reduce((x, y) => x + y, 0)).toBe(run(b).report().totals.restores);
  });
});

function byTs(x: IngestRecord, y: IngestRecord): number {
  return (x.k === 'batch' ? x.meta.ts : 0) - (y.k === 'batch' ? y.meta.ts : 0);
}
