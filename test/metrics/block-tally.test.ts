// The block tally behind kvscope_{stored,removed,resident}_blocks: per (source, medium), and equal
// to what the model (and so the screens) counts, on random streams with clears and restarts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { BlockTally } from '../../electron/metrics/block-tally';
import { CacheModel } from '../../electron/model/cache-model';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, stored } from '../model/helpers';
import { asParts } from '../support/hash-parts';

const src = fc.constantFrom('a', 'b');
const med = fc.constantFrom('GPU', 'CPU', null);
// Canonical decimals, and texts that are none (kept by text; '07' is not the hash '7').
const hash = fc.oneof(fc.nat(12).map(String), fc.constantFrom('07', '0x1f', 'ab'));
const hs = fc.array(hash, { minLength: 1, maxLength: 4 });
/** Whether the record's u64 hashes come as the live decoder gives them (decimal parts). */
const parts = fc.boolean();
const op = fc.oneof(
  fc.record({ t: fc.constant('store' as const), src, med, hs, parts }),
  fc.record({ t: fc.constant('remove' as const), src, med, hs, parts }),
  fc.record({ t: fc.constant('clear' as const), src }),
  fc.record({ t: fc.constant('reset' as const), src }),
);

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/**
 * The records of a random stream of stores, removals, clears and restarts, half a second apart;
 * `asDecoded`: each store's or removal's hashes as its op says (texts, or decimal parts where all
 * are u64), else texts.
 */
function records(ops: Op[], asDecoded = false): IngestRecord[] {
  return ops.map((o, i) => {
    const ts = (i + 1) / 2;
    if (o.t === 'reset') return { k: 'reset', rec: { source: o.src, previousSeq: 9, at: ts } };
    if (o.t === 'clear') return batch([cleared(o.src, ts)]);
    const rec =
      o.t === 'store' ? stored(o.src, ts, o.hs, null, o.med) : removed(o.src, ts, o.hs, o.med);
    return batch([asDecoded && o.parts ? { ...rec, event: asParts(rec.event) } : rec]);
  });
}

/** The distinct hashes resident in some (source, medium) after ops (a plain reference). */
function residentHashes(ops: Op[]): Set<string> {
  const sets = new Map<string, Set<string>>();
  for (const o of ops) {
    if (o.t === 'clear' || o.t === 'reset') {
      for (const k of [...sets.keys()]) if (k.startsWith(`${o.src}/`)) sets.delete(k);
      continue;
    }
    const key = `${o.src}/${o.med ?? ''}`;
    const set = sets.get(key) ?? new Set<string>();
    sets.set(key, set);
    for (const h of o.hs) {
      if (o.t === 'store') set.add(h);
      else set.delete(h);
    }
  }
  return new Set([...sets.values()].flatMap((s) => [...s]));
}

describe('block tally', () => {
  it('counts stored, removed and resident blocks per source as the model does, by medium', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const model = new CacheModel({ evictedCap: 5, ringSize: 100 });
        const tally = new BlockTally();
        for (const r of records(ops)) model.apply(r);
        // The tally takes u64 hashes as texts or as parts, as they come: one hash either way.
        for (const r of records(ops, true)) tally.record(r);
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
        // A hash no set holds is forgotten: once both sources restart, none is kept.
        expect(tally.ownHashes).toBe(residentHashes(ops).size);
        for (const source of ['a', 'b'])
          tally.record({ k: 'reset', rec: { source, previousSeq: 9, at: 1e6 } });
        expect(tally.ownHashes).toBe(0);
      }),
    );
  });

  it('keeps a hash two media hold until neither does, whatever comes between', () => {
    const tally = new BlockTally();
    const gpu = (): number | undefined =>
      tally.media('a').find((t) => t.medium === 'GPU')?.resident;
    tally.record(batch([stored('a', 1, ['5'], null, 'GPU'), stored('a', 1, ['5'], null, 'CPU')]));
    tally.record(batch([removed('a', 2, ['5'], 'CPU')]));
    // A new hash must not take the id '5' still has in GPU.
    tally.record(batch([stored('a', 3, ['6'], null, 'CPU')]));
    tally.record(batch([removed('a', 4, ['6'], 'GPU')]));
    expect(gpu()).toBe(1);
    tally.record(batch([removed('a', 5, ['5'], 'GPU')]));
    expect(gpu()).toBe(0);
    expect(tally.ownHashes).toBe(1);
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
