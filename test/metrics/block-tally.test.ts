// The block tally behind kvscope_{stored,removed,resident}_blocks: per (source, medium), and equal
// to what the model (and so the screens) counts, on random streams with clears and restarts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { BlockTally } from '../../electron/metrics/block-tally';
import { CacheModel } from '../../electron/model/cache-model';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, stored } from '../model/helpers';

const src = fc.constantFrom('a', 'b');
const med = fc.constantFrom('GPU', 'CPU', null);
const hs = fc.array(fc.nat(12), { minLength: 1, maxLength: 4 });
const op = fc.oneof(
  fc.record({ t: fc.constant('store' as const), src, med, hs }),
  fc.record({ t: fc.constant('remove' as const), src, med, hs }),
  fc.record({ t: fc.constant('clear' as const), src }),
  fc.record({ t: fc.constant('reset' as const), src }),
);

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** The records of a random stream of stores, removals, clears and restarts, half a second apart. */
function records(ops: Op[]): IngestRecord[] {
  return ops.map((o, i) => {
    const ts = (i + 1) / 2;
    if (o.t === 'reset') return { k: 'reset', rec: { source: o.src, previousSeq: 9, at: ts } };
    if (o.t === 'clear') return batch([cleared(o.src, ts)]);
    const hashes = o.hs.map(String);
    return batch([
      o.t === 'store' ? stored(o.src, ts, hashes, null, o.med) : removed(o.src, ts, hashes, o.med),
    ]);
  });
}

describe('block tally', () => {
  it('counts stored, removed and resident blocks per source as the model does, by medium', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const model = new CacheModel({ evictedCap: 5, ringSize: 100 });
        const tally = new BlockTally();
        for (const r of records(ops)) {
          model.apply(r);
          tally.record(r);
        }
        const sum = (f: 'stored' | 'removed' | 'resident') =>
          ['a', 'b'].reduce((n, s) => n + tally.media(s).reduce((m, t) => m + t[f], 0), 0);
        const kpis = model.kpis();
        expect(sum('stored')).toBe(kpis.storedBlocks);
        expect(sum('removed')).toBe(kpis.removedBlocks);
        expect(sum('resident')).toBe(kpis.residentBlocks);
        for (const s of ['a', 'b']) {
          const resident = tally.media(s).reduce((n, t) => n + t.resident, 0);
          expect(resident).toBe(model.sourceStats(s).residentBlocks);
        }
      }),
    );
  });

  it('keeps media apart, names a missing medium "unspecified", and forgets a removed source', () => {
    const tally = new BlockTally();
    tally.record(
      batch([stored('a', 1, ['1', '2'], null, 'GPU'), stored('a', 1, ['1'], null, 'CPU')]),
    );
    tally.record(batch([stored('a', 2, ['1'], null, 'GPU'), removed('a', 2, ['9'], null)]));
    expect(tally.media('a')).toEqual([
      { medium: 'GPU', stored: 3, removed: 0, resident: 2 },
      { medium: 'CPU', stored: 1, removed: 0, resident: 1 },
      { medium: 'unspecified', stored: 0, removed: 1, resident: 0 },
    ]);
    expect(tally.dpRank('a')).toBe(0);
    tally.forget('a');
    expect(tally.media('a')).toEqual([]);
    expect(tally.dpRank('a')).toBeNull();
  });

  it('counts the same resident blocks per (source, medium) from the analysis it sits beside', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const own = new BlockTally();
        const analysis = new CacheAnalysis();
        const beside = new BlockTally((s, m) => analysis.residentOf(s, m));
        for (const r of records(ops)) {
          own.record(r);
          analysis.apply(r);
          beside.record(r);
        }
        for (const s of ['a', 'b']) expect(beside.media(s)).toEqual(own.media(s));
      }),
    );
  });
});
