// A file naming thousands of sources (a hostile one): the analysis takes MAX_ANALYSED_SOURCES at
// once and counts the batches of the rest, left out, instead of widening every hash's holder set
// and the pair matrix with each (4,000 sources took 17 s and 534 MB, 20,000 did not finish).
import { describe, expect, it } from 'vitest';
import { toAnalyzeJson } from '../../electron/analysis/analyze-json';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { MAX_ANALYSED_SOURCES } from '../../shared/analysis-report';
import { batch, removed, stored } from './helpers';

describe('sources past the analysed limit', () => {
  it('are left out, their batches counted; a source removed makes room again', () => {
    const a = new CacheAnalysis();
    for (let i = 0; i < MAX_ANALYSED_SOURCES + 3; i += 1)
      a.apply(batch(`s${i}`, 1, [stored([`h${i}`])]));
    a.apply(batch(`s${MAX_ANALYSED_SOURCES}`, 2, [removed([`h${MAX_ANALYSED_SOURCES}`])]));
    const r = a.report();
    expect(a.sources).toHaveLength(MAX_ANALYSED_SOURCES);
    expect(r.batchesPastSourceLimit).toBe(4);
    expect(r.totals.newStores).toBe(MAX_ANALYSED_SOURCES);
    expect(toAnalyzeJson(r).batches_past_source_limit).toBe(4);
    a.removeSource('s0');
    a.apply(batch('late', 3, [stored(['x'])]));
    expect(a.sources.map((s) => s.name)).toContain('late');
    expect(a.report().batchesPastSourceLimit).toBe(4);
  });

  it('says nothing of a limit in the JSON of a file within it', () => {
    const a = new CacheAnalysis();
    a.apply(batch('e', 1, [stored(['a'])]));
    expect(toAnalyzeJson(a.report())).not.toHaveProperty('batches_past_source_limit');
  });
});
