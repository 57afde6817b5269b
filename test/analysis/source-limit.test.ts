// A file naming thousands of sources (a hostile one): the analysis takes MAX_ANALYSED_SOURCES at
// once and counts the batches of the rest, left out, instead of widening every hash's holder set
// and the pair matrix with each (4,000 sources took 17 s and 534 MB, 20,000 did not finish).
import { describe, expect, it } from 'vitest';
import { toAnalyzeJson } from '../../electron/analysis/analyze-json';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { analyzeText } from '../../electron/cli/analyze-text';
import { MAX_ANALYSED_SOURCES, MAX_REPORT_SOURCES } from '../../shared/analysis-report';
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
    expect(toAnalyzeJson(a.report())).not.toHaveProperty('lists_cut');
  });

  it('counts every source analysed where its lists name only the first, and says so', () => {
    // More sources analysed than a report lists: the count and the totals take them all.
    const n = MAX_REPORT_SOURCES + 44;
    const a = new CacheAnalysis();
    for (let i = 0; i < n; i += 1) a.apply(batch(`s${i}`, 1, [stored([`h${i}`])]));
    const r = a.report();
    expect(r.sourceCount).toBe(n);
    expect(r.sources).toHaveLength(MAX_REPORT_SOURCES);
    expect(r.whatIfCount).toBe(n);
    expect(r.whatIf).toHaveLength(MAX_REPORT_SOURCES);
    expect(r.totals.newStores).toBe(n);
    const json = toAnalyzeJson(r);
    expect(json.lists_cut).toEqual({
      per_source: { listed: MAX_REPORT_SOURCES, of: n },
      what_if: { listed: MAX_REPORT_SOURCES, of: n },
    });
    expect(Object.keys(json.per_source as object)).toHaveLength(MAX_REPORT_SOURCES);
    const text = analyzeText(r, { file: 'f', kind: 'session' });
    expect(text).toMatch(new RegExp(`batches, ${n} sources$`, 'm'));
    expect(text).toContain(`The first ${MAX_REPORT_SOURCES} of ${n} sources (`);
    expect(text).toContain(`The first ${MAX_REPORT_SOURCES} of ${n} source media (`);
  });
});
