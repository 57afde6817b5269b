// A state snapshot read back (state-snapshot.ts) is the state written: every figure the screens
// and the Insights read is the same, and it goes on the same way when more records come (its
// hash tables, free lists and rings intact), however ids were let go and reused before it.
import v8 from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import type { CacheModel } from '../../electron/model/cache-model';
import { readEventLine } from '../../electron/session/event-line';
import { ModelAndAnalysis } from '../../electron/session/model-and-analysis';
import { readState, writeState } from '../../electron/session/state-snapshot';
import type { ChainSort } from '../../shared/api-types';
import type { IngestRecord } from '../../shared/records';
import { batch, reset, stored } from '../analysis/helpers';
import { HASHES, op, type Op } from '../support/cache-ops';

// Small tables, so that ids are let go and handed out again, rings wrap and lists spill.
const modelOptions = { evictedCap: 3, ringSize: 50, readEventLine };
const analysisOptions = { ghostExactCap: 3, ghostTailCap: 2 };
const SORTS: ChainSort[] = ['depth', 'lastSeen', 'restores', 'resident', 'evicted', 'sources'];

/** What the screens and the Insights read of a model and an analysis. */
function figures(model: CacheModel, analysis: CacheAnalysis): unknown {
  const chains = SORTS.map((sort) => model.chains({ sort, desc: true, offset: 0, limit: 100 }));
  const firstChain = chains[0]?.rows[0]?.id;
  return {
    kpis: model.kpis(),
    media: model.media(),
    sources: model.sources(),
    forgotten: model.forgottenBlocks(),
    blocks: HASHES.map((h) => model.block(h) ?? null),
    chains,
    chain: firstChain === undefined ? null : model.chain(firstChain),
    search: model.search('18'),
    events: model.events({ offset: 0, limit: 100 }),
    removals: model.events({ types: ['BlockRemoved'], medium: 'GPU', offset: 0, limit: 20 }),
    series: model.series({ rangeSec: null }),
    report: analysis.report(),
    ids: HASHES.map((h) => analysis.holdings.find(h) >= 0),
  };
}

type Step = IngestRecord | { k: 'remove'; source: string };

/** The records of ops from ts on (made once: the helpers number batches as they make them). */
function steps(ops: readonly Op[], ts: number): Step[] {
  return ops.map((o, i) =>
    o.k === 'remove'
      ? o
      : o.k === 'batch'
        ? batch(o.source, ts + i, o.events)
        : reset(o.source, ts + i),
  );
}

function play(records: readonly Step[], both: ModelAndAnalysis): void {
  for (const r of records) {
    if (r.k === 'remove') both.removeSource(r.source);
    else both.apply(r);
  }
}

/** A model and an analysis written and read back, their functions set again. */
function throughSnapshot(both: ModelAndAnalysis): ModelAndAnalysis {
  const back = readState(writeState(both));
  if (!(back instanceof ModelAndAnalysis)) throw new Error('not read back as ModelAndAnalysis');
  back.model.reattach(readEventLine);
  return back;
}

describe('a state snapshot', () => {
  it('reads back a model and an analysis that give every figure, and go on as the ones written', () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.array(op, { minLength: 0, maxLength: 30 }),
        (before, after) => {
          const both = new ModelAndAnalysis(modelOptions, analysisOptions);
          play(steps(before, 1000), both);
          const back = throughSnapshot(both);
          expect(figures(back.model, back.analysis)).toEqual(figures(both.model, both.analysis));
          const more = steps(after, 2000);
          play(more, both);
          play(more, back);
          expect(figures(back.model, back.analysis)).toEqual(figures(both.model, both.analysis));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads back one hash id table where the state shared one, not a copy per holder', () => {
    const both = new ModelAndAnalysis(modelOptions, analysisOptions);
    play(steps([{ k: 'batch', source: 's0', events: [stored(['1', '2'])] }], 1000), both);
    type Inside = { forest: { ids: unknown }; holdings: { ids: unknown }; ids: { table: unknown } };
    const back = throughSnapshot(both);
    const model = back.model as unknown as Inside;
    const analysis = back.analysis as unknown as Inside;
    expect(model.forest.ids).toBeDefined();
    expect(model.forest.ids).toBe(analysis.holdings.ids);
    expect((back as unknown as Inside).ids.table).toBe(model.forest.ids);
  });

  it('refuses a state holding an object of a class it does not know, or a function', () => {
    class Stranger {
      n = 1;
    }
    expect(() => writeState({ a: new Stranger() })).toThrow(/Stranger is not in STATE_CLASSES/);
    expect(() => writeState({ f: () => 1 })).toThrow(/holds a function/);
  });

  it('refuses bytes that are not a snapshot', () => {
    expect(() => readState(Buffer.from([0xff, 0x0d, 0x6f, 0x7b]))).toThrow();
    expect(() => readState(writeState({ root: 1 }).subarray(0, 3))).toThrow();
    expect(() => readState(v8.serialize({ root: {}, instances: [{}], classes: [999] }))).toThrow(
      /another build/,
    );
  });
});
