// The model and the analysis over one hash id table, each batch looked up once (ModelAndAnalysis),
// against the two fed separately, each with a table of its own: every figure the same. Few hashes,
// a forest that remembers 3 evicted blocks and ghost lists of 3 exact entries, so ids are let go
// and handed out again inside batches (a hash stored then removed in one batch, removals of hashes
// nobody knows, clears, restarts, a source removed).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { SharedHashIds } from '../../electron/collections/shared-hash-ids';
import { CacheModel } from '../../electron/model/cache-model';
import { ModelAndAnalysis } from '../../electron/session/model-and-analysis';
import type { ChainSort } from '../../shared/api-types';
import type { IngestRecord } from '../../shared/records';
import { asParts } from '../support/hash-parts';
import { batch, removed, reset, stored } from '../analysis/helpers';
import { HASHES, op, type Op } from '../support/cache-ops';

const modelOptions = { evictedCap: 3, ringSize: 50 };
const analysisOptions = { ghostExactCap: 3, ghostTailCap: 2 };
const SORTS: ChainSort[] = [
  'depth',
  'lastSeen',
  'firstSeen',
  'restores',
  'resident',
  'evicted',
  'sources',
];

/** What the screens and the Insights read of a model and an analysis. */
function figures(model: CacheModel, analysis: CacheAnalysis): unknown {
  return {
    kpis: model.kpis(),
    forgotten: model.forgottenBlocks(),
    blocks: HASHES.map((h) => model.block(h) ?? null),
    chains: SORTS.map((sort) => model.chains({ sort, desc: true, offset: 0, limit: 100 })),
    search: model.search('18'),
    report: analysis.report(),
    ids: HASHES.map((h) => analysis.holdings.find(h) >= 0),
  };
}

/** A model and an analysis, fed together (ModelAndAnalysis: one table) or apart. */
interface Fed {
  apply(r: IngestRecord): void;
  removeSource(id: string): void;
  figures(): unknown;
}

function together(): Fed {
  const both = new ModelAndAnalysis(modelOptions, analysisOptions);
  return {
    apply: (r) => both.apply(r),
    removeSource: (id) => both.removeSource(id),
    figures: () => figures(both.model, both.analysis),
  };
}

function apart(): Fed {
  const model = new CacheModel(modelOptions);
  const analysis = new CacheAnalysis(analysisOptions);
  return {
    apply: (r) => {
      model.apply(r);
      analysis.apply(r);
    },
    removeSource: (id) => {
      model.removeSource(id);
      analysis.removeSource(id);
    },
    figures: () => figures(model, analysis),
  };
}

/**
 * Feeds ops to each, its hashes as texts or (`parts`) as the decoder gives u64 hashes, and
 * returns every one's figures.
 */
function feed(ops: Op[], each: { fed: Fed; parts: boolean }[]): unknown[] {
  let ts = 1000;
  for (const o of ops) {
    ts += 1;
    if (o.k === 'remove') {
      for (const { fed } of each) fed.removeSource(o.source);
      continue;
    }
    const text = o.k === 'batch' ? batch(o.source, ts, o.events) : reset(o.source, ts);
    const parts: IngestRecord =
      text.k === 'batch'
        ? { ...text, events: text.events.map((e) => ({ ...e, event: asParts(e.event) })) }
        : text;
    for (const e of each) e.fed.apply(e.parts ? parts : text);
  }
  return each.map(({ fed }) => fed.figures());
}

describe('model and analysis over one hash id table', () => {
  it('give every figure the two give over tables of their own, as ids are let go and reused inside batches', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const [both, alone] = feed(ops, [
          { fed: together(), parts: false },
          { fed: apart(), parts: false },
        ]);
        expect(both).toEqual(alone);
      }),
      { numRuns: 300 },
    );
  });

  it('give every figure alike for hashes as texts and as the decoder gives u64 hashes (decimal parts), fed together or apart', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const [byText, ...byParts] = feed(ops, [
          { fed: together(), parts: false },
          { fed: together(), parts: true },
          { fed: apart(), parts: true },
        ]);
        for (const got of byParts) expect(got).toEqual(byText);
      }),
      { numRuns: 300 },
    );
  });

  it("link a store to its named parent through the batch's look-up, not by the parent's text again", () => {
    const both = new ModelAndAnalysis(modelOptions, analysisOptions);
    both.apply(batch('a', 1000, [stored(['11', '12'])]));
    const byText = vi.spyOn(SharedHashIds.prototype, 'find');
    try {
      // Two stores naming known parents (one of them stored in this very batch), then a removal.
      both.apply(
        batch('a', 1001, [stored(['13'], { parent: '12' }), stored(['14'], { parent: '13' })]),
      );
      both.apply(batch('a', 1002, [removed(['14'])]));
      expect(byText).not.toHaveBeenCalled();
    } finally {
      byText.mockRestore();
    }
    expect(both.model.block('13')?.parent).toBe('12');
    expect(both.model.block('14')?.parent).toBe('13');
  });
});
