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
import { readState, writeState, writeWalked } from '../../electron/session/state-snapshot';
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
  const back = readState(writeState(both).toBuffer());
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
    expect(() => readState(writeState({ root: 1 }).toBuffer().subarray(0, 3))).toThrow();
    expect(() => readState(v8.serialize({ root: 1 }))).toThrow(/not a state snapshot/);
    const stranger = writeWalked({ root: {}, instances: [{}], classes: [999] }, []);
    expect(() => readState(stranger.toBuffer())).toThrow(/another build/);
    const arrays = writeState({ a: new Float64Array([1, 2, 3]) }).toBuffer();
    expect(() => readState(arrays.subarray(0, arrays.length - 8))).toThrow(/cut short/);
  });
});

describe("a state snapshot's typed arrays", () => {
  it('are written from their own memory, not copied, and read back as they were', () => {
    const big = new Float64Array(1000).map((_, i) => i / 3);
    const written = writeState({ big });
    expect([...written.chunks()].some((c) => c.buffer === big.buffer)).toBe(true);
    const back = readState(written.toBuffer()) as { big: Float64Array };
    expect(back.big).toBeInstanceOf(Float64Array);
    expect(back.big).toEqual(big);
  });

  it('share memory again where they shared it, each aligned, whatever their offsets', () => {
    const buffer = new ArrayBuffer(64);
    const bytes = new Uint8Array(buffer, 3, 5);
    const words = new Int32Array(buffer, 8, 4);
    const doubles = new Float64Array(buffer, 16, 2);
    bytes.set([1, 2, 3, 4, 5]);
    words.set([-1, 7, 1 << 30, 9]);
    const state = { bytes, words, doubles, view: new DataView(buffer, 40, 8), b: Buffer.from('x') };
    const back = readState(writeState(state).toBuffer()) as typeof state;
    expect([...back.bytes]).toEqual([1, 2, 3, 4, 5]);
    expect([...back.words]).toEqual([-1, 7, 1 << 30, 9]);
    expect(back.words.buffer).toBe(back.doubles.buffer);
    expect(back.words.buffer).toBe(back.bytes.buffer);
    doubles[0] = 0.5;
    back.doubles[0] = 0.5;
    expect([...back.words]).toEqual([...words]);
    expect(back.view).toBeInstanceOf(DataView);
    expect(Buffer.isBuffer(back.b) && back.b.toString()).toBe('x');
  });

  it("writes none of a pooled Buffer's neighbours", () => {
    // Small Buffers share one pool: the bytes beside this one are another's.
    const secret = Buffer.from('a neighbour that is not the state');
    const mine = Buffer.from('mine');
    expect(mine.buffer).toBe(secret.buffer);
    const written = writeState({ mine }).toBuffer();
    expect(written.includes('neighbour')).toBe(false);
    expect((readState(written) as { mine: Buffer }).mine.toString()).toBe('mine');
  });

  it('tell by their fingerprint when they changed since they were written', () => {
    const counts = new Uint32Array(100);
    const written = writeState({ counts });
    const before = written.fingerprint();
    expect(written.fingerprint()).toBe(before);
    counts[50] = 1;
    expect(written.fingerprint()).not.toBe(before);
  });
});
