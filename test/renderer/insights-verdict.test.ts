import { describe, expect, it } from 'vitest';
import type { AnalysisReport, WhatIfReport } from '../../shared/analysis-report';
import { insightsVerdict } from '../../renderer/lib/insights-verdict';

const whatIf = (over: Partial<WhatIfReport> = {}): WhatIfReport => ({
  source: 'dp0',
  dpRank: 0,
  medium: 'GPU',
  peakResident: 2048,
  capacityBlocks: 2048,
  capacityBasis: 'peak-resident',
  newStores: 35_000,
  restores: 4310,
  thrashRestores: 3060,
  ghosts: 900,
  estimate: false,
  storesAfterEvictionS: 600,
  points: [
    { extraFraction: 0.1, extraBlocks: 205, extraHits: 400 },
    { extraFraction: 0.25, extraBlocks: 512, extraHits: 1200 },
    { extraFraction: 0.5, extraBlocks: 1024, extraHits: 2000 },
    { extraFraction: 1, extraBlocks: 2048, extraHits: 3000 },
    { extraFraction: 2, extraBlocks: 4096, extraHits: 4000 },
  ],
  curve: [],
  ...over,
});

const report = (over: Partial<AnalysisReport> = {}): AnalysisReport =>
  ({
    thrashWindowS: 60,
    estimate: false,
    totals: {
      storedBlocks: 0,
      removedBlocks: 0,
      residentBlocks: 0,
      newStores: 35_000,
      announcedHits: 0,
      hitRatio: null,
      restores: 4310,
      thrashRestores: 3060,
    },
    sources: [{ source: 'dp0' }, { source: 'dp1' }],
    whatIf: [whatIf()],
    lifetimes: [],
    crossSource: {
      duplicateStores: 6650,
      routingRegretBlocks: 0,
      routingRegretTokens: 0,
      sharedBlocksNow: 10,
      duplicateBlocksNow: 12,
      overlap: [],
    },
    hotPrefixes: [],
    hotPrefixesExact: true,
    thrashByWindow: [],
    restoreSeries: { startS: null, binS: 1, restores: [], thrashRestores: [], thrashByWindow: [] },
    input: { lostBatches: 0, resets: 0, clears: 0 },
    ...over,
  }) as AnalysisReport;

describe('the insights verdict', () => {
  it('says what thrashes, what more capacity would keep and what is held twice, with the numbers', () => {
    expect(insightsVerdict(report(), (s) => s)).toEqual([
      "dp0's GPU cache thrashes: 4,310 re-stores, 71.0% within 60 s of their eviction.",
      'With 25% more GPU blocks (512) about 1,200 of them would have been hits (3.4% of its new stores).',
      '19.0% of new stores were already cached on another source (12 duplicate blocks held now).',
    ]);
  });

  it('says the cache is big enough only when nothing was re-stored for a thrash window after evictions began', () => {
    const totals = { ...report().totals, removedBlocks: 33_000 };
    const r = report({
      whatIf: [whatIf({ restores: 0, thrashRestores: 0, storesAfterEvictionS: 60 })],
      sources: [],
      totals,
    });
    expect(insightsVerdict(r, (s) => s)).toEqual([
      'No block was stored again after its eviction (35,000 new stores, 33,000 blocks removed): at this load the cache is big enough.',
    ]);
  });

  it('does not know yet whether the cache is big enough before it evicted', () => {
    const r = report({
      whatIf: [whatIf({ restores: 0, thrashRestores: 0, storesAfterEvictionS: null })],
      sources: [],
    });
    expect(insightsVerdict(r, (s) => s)).toEqual([
      'No block has been evicted yet (35,000 new stores): the cache has not filled, so whether it is big enough is not known yet.',
    ]);
  });

  it('says a cache joined mid-stream removed blocks stored before, not that it never evicted', () => {
    const r = report({
      whatIf: [whatIf({ restores: 0, thrashRestores: 0, storesAfterEvictionS: null })],
      sources: [],
      totals: { ...report().totals, removedBlocks: 6668 },
    });
    expect(insightsVerdict(r, (s) => s)).toEqual([
      'None of the blocks seen stored has been evicted yet (35,000 new stores; the 6,668 blocks removed had been stored before they were seen): whether the cache is big enough is not known yet.',
    ]);
    // One cache of two has: the other is named as the one that evicted none it was seen storing.
    const two = report({
      whatIf: [
        whatIf({ restores: 0, thrashRestores: 0, storesAfterEvictionS: 600 }),
        whatIf({ restores: 0, thrashRestores: 0, medium: 'CPU', storesAfterEvictionS: null }),
      ],
      sources: [],
      totals: { ...report().totals, removedBlocks: 6668 },
    });
    expect(insightsVerdict(two, (s) => s)[0]).toMatch(
      /but dp0's CPU cache has evicted none of the blocks it was seen storing: whether/,
    );
  });

  it('says a cache emptied by a restart has evicted before, not that it never has', () => {
    const r = report({
      whatIf: [whatIf({ restores: 0, thrashRestores: 0, storesAfterEvictionS: null })],
      sources: [],
      totals: { ...report().totals, removedBlocks: 100, newStores: 201, restores: 0 },
      input: { lostBatches: 0, resets: 1, clears: 0 } as AnalysisReport['input'],
    });
    expect(insightsVerdict(r, (s) => s)).toEqual([
      'No block has been evicted since the cache was last emptied by a restart or a clear (201 new stores, 100 blocks removed before it): whether it is big enough is not known yet.',
    ]);
  });

  it('does not know yet while stores ran less than the thrash window past the first eviction', () => {
    const quiet = { restores: 0, thrashRestores: 0 };
    const r = report({
      whatIf: [
        whatIf({ ...quiet, storesAfterEvictionS: 1.5 }),
        whatIf({ ...quiet, source: 'dp1', storesAfterEvictionS: 600 }),
      ],
      sources: [],
    });
    expect(insightsVerdict(r, (s) => s)).toEqual([
      "No evicted block was stored again yet (35,000 new stores), but dp0's GPU cache stored for only 1.50 s after its first eviction: whether it is big enough is not known until it has stored for 60 s past an eviction (the thrash window).",
    ]);
  });

  it('does not call late re-stores thrash, and says when more capacity would not help', () => {
    const w = whatIf({
      thrashRestores: 10,
      points: whatIf().points.map((p) => ({ ...p, extraHits: 0 })),
    });
    const lines = insightsVerdict(report({ whatIf: [w], sources: [] }), (s) => s);
    expect(lines[0]).toMatch(/only 0.2% within 60 s .*little thrash/);
    // +200% is three times the capacity, and what it misses is about blocks evicted, not time.
    const most = w.points.find((p) => p.extraFraction === 2)?.extraBlocks ?? 0;
    expect(lines[1]).toBe(
      `Even 200% more GPU blocks (${most.toLocaleString('en-US')}) would not have kept them: each came back only after at least that many other blocks were evicted.`,
    );
  });

  it('says first that batches were lost, since every figure after it misses their events', () => {
    const input = { lostBatches: 1200 } as AnalysisReport['input'];
    const lines = insightsVerdict(report({ input }), (s) => s);
    expect(lines[0]).toBe(
      '1,200 batches were lost (gaps in the stream that no replay filled): their stores and evictions are missing from every figure below, and blocks evicted in them still count as resident.',
    );
    expect(lines.slice(1)).toEqual(insightsVerdict(report(), (s) => s));
  });

  it('names the hit ratio where hits are announced, and nothing before any store', () => {
    const t = { ...report().totals, announcedHits: 5000, hitRatio: 5000 / 40_000 };
    expect(insightsVerdict(report({ totals: t }), (s) => s).at(-1)).toBe(
      'Announced hit ratio 12.5% (5,000 re-announced blocks).',
    );
    const empty = { ...report().totals, newStores: 0 };
    expect(insightsVerdict(report({ totals: empty }), (s) => s)).toEqual([
      'No block has been stored yet: nothing to judge.',
    ]);
  });
});
