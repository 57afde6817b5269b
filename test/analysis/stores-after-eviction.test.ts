// How long a (source, medium) stored after its first eviction: what the Insights' verdict needs
// before it may say that nothing re-stores (a 1.5 s capture cannot have seen a re-store yet).
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, stored } from './helpers';

function row(records: IngestRecord[]) {
  const a = new CacheAnalysis();
  for (const r of records) a.apply(r);
  const w = a.report().whatIf.find((x) => x.source === 'e' && x.medium === 'GPU');
  if (!w) throw new Error('no what-if row for e GPU');
  return w;
}

describe('stores after the first eviction', () => {
  it('is null before any eviction, even over a long run of stores', () => {
    expect(
      row([batch('e', 0, [stored(['a'])]), batch('e', 500, [stored(['b'])])]).storesAfterEvictionS,
    ).toBeNull();
  });

  it('runs from the first eviction into G to the latest store', () => {
    const w = row([
      batch('e', 10, [stored(['a', 'b'])]),
      batch('e', 11, [removed(['a'])]),
      batch('e', 12, [removed(['b'])]),
      batch('e', 11.5, [stored(['c'])]),
      batch('e', 40, [stored(['d'])]),
    ]);
    expect(w.storesAfterEvictionS).toBe(29);
  });

  it('ignores a removal of a hash that was not resident (no eviction into G)', () => {
    const w = row([batch('e', 0, [stored(['a'])]), batch('e', 1, [removed(['x'])])]);
    expect(w.storesAfterEvictionS).toBeNull();
  });

  it('starts again after a clear, which empties G', () => {
    const w = row([
      batch('e', 0, [stored(['a'])]),
      batch('e', 1, [removed(['a'])]),
      batch('e', 100, [stored(['b'])]),
      batch('e', 101, [cleared()]),
      batch('e', 102, [stored(['c'])]),
      batch('e', 103, [removed(['c'])]),
      batch('e', 104.5, [stored(['d'])]),
    ]);
    expect(w.storesAfterEvictionS).toBe(1.5);
  });
});
