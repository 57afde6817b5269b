// The report of a CacheAnalysis: plain, bounded data (caps on sources, curve points, top-N lists
// and the overlap matrix), so it can be sent to a renderer as is.

import {
  HOT_PREFIXES_TOP,
  KV_CACHE_GROUPS_LISTED,
  MAX_OVERLAP_SOURCES,
  MAX_REPORT_SOURCES,
  THRASH_WINDOWS_S,
  WHAT_IF_CURVE_POINTS,
  WHAT_IF_FRACTIONS,
  type AnalysisReport,
  type LifetimeReport,
  type OverlapCell,
  type SourceReport,
  type StoreFigures,
  type WhatIfPoint,
  type WhatIfReport,
} from '../../shared/analysis-report';
import { newCounters, type Counters, type MediumState, type SourceState } from './analysis-state';
import type { CacheAnalysis } from './cache-analysis';

/** The report of an analysis as it stands. */
export function buildReport(a: CacheAnalysis): AnalysisReport {
  const shown = a.sources.slice(0, MAX_REPORT_SOURCES);
  const sources = shown.map(sourceReport);
  const whatIf: WhatIfReport[] = [];
  for (const s of shown) {
    for (const m of s.media.values()) {
      if (whatIf.length < MAX_REPORT_SOURCES) whatIf.push(whatIfReport(a, s, m));
    }
  }
  const lifetimes: LifetimeReport[] = a.lifetimes().map(([medium, l]) => {
    const x = l.summary();
    return {
      medium,
      count: x.count,
      p50S: x.p50,
      p90S: x.p90,
      p99S: x.p99,
      histogram: x.histogram,
      estimate: x.estimate,
    };
  });
  const all = a.sources.flatMap((s) => [...s.media.values()]);
  const totals = figures(
    sumCounters(a.sources.map((s) => s.c)),
    all.reduce((n, m) => n + m.resident.size, 0),
  );
  const overlap: OverlapCell[] = [];
  const paired = a.sources.slice(0, MAX_OVERLAP_SOURCES);
  for (let i = 0; i < paired.length; i += 1) {
    for (let j = i + 1; j < paired.length; j += 1) {
      const x = paired[i] as SourceState;
      const y = paired[j] as SourceState;
      overlap.push({
        sourceA: x.name,
        sourceB: y.name,
        blocks: a.holdings.overlap(x.slot, y.slot),
      });
    }
  }
  const thrashAt = a.thrashAt();
  const estimate =
    all.some((m) => m.ghosts.estimate) || lifetimes.some((l) => l.estimate) || !a.hot.exact;
  return {
    thrashWindowS: a.thrashWindowS,
    group: a.group,
    batchesPastSourceLimit: a.batchesPastSourceLimit,
    estimate,
    totals,
    sources,
    sourceCount: a.sources.length,
    whatIf,
    whatIfCount: all.length,
    lifetimes,
    crossSource: {
      duplicateStores: sum(a.sources, (s) => s.duplicateStores),
      routingRegretBlocks: sum(a.sources, (s) => s.regretBlocks),
      routingRegretTokens: sum(a.sources, (s) => s.regretTokens),
      sharedBlocksNow: a.holdings.sharedNow,
      duplicateBlocksNow: a.holdings.duplicateNow,
      overlap,
    },
    hotPrefixes: a.hot.top(HOT_PREFIXES_TOP),
    hotPrefixesExact: a.hot.exact,
    reuse: a.reuse(),
    thrashByWindow: THRASH_WINDOWS_S.map((windowS, i) => ({
      windowS,
      thrashRestores: Math.round(thrashAt[i] ?? 0),
    })),
    restoreSeries: a.series.snapshot(),
    input: { ...a.input },
  };
}

function sourceReport(s: SourceState): SourceReport {
  const resident = [...s.media.values()].reduce((n, m) => n + m.resident.size, 0);
  return {
    source: s.name,
    dpRank: s.dpRank,
    ...figures(s.c, resident),
    duplicateStores: s.duplicateStores,
    routingRegretBlocks: s.regretBlocks,
    routingRegretTokens: s.regretTokens,
    clears: s.input.clears,
    resets: s.input.resets,
    media: [...s.media.keys()],
    kvCacheGroups: [...s.groups]
      .sort(([a], [b]) => a - b)
      .slice(0, KV_CACHE_GROUPS_LISTED)
      .map(([group, g]) => ({ group, ...g })),
    kvCacheGroupCount: s.groups.size,
    kvCacheGroupsCapped: s.groupsCapped,
  };
}

function whatIfReport(a: CacheAnalysis, s: SourceState, m: MediumState): WhatIfReport {
  const engine = a.capacityOf(s.name, m.medium);
  const capacity = engine ?? m.peak;
  const pointKs = WHAT_IF_FRACTIONS.map((f) => Math.ceil(f * capacity));
  // The curve runs to twice the capacity, or past the farthest re-store if that is farther.
  const kMax = Math.max(Math.ceil(2 * capacity), m.distances.max + 1, 1);
  const steps = WHAT_IF_CURVE_POINTS - 1;
  const curveKs = [
    ...new Set(Array.from({ length: steps + 1 }, (_, i) => Math.round((i * kMax) / steps))),
  ];
  const hits = m.distances.below([...pointKs, ...curveKs]).map(Math.round);
  const points: WhatIfPoint[] = WHAT_IF_FRACTIONS.map((f, i) => ({
    extraFraction: f,
    extraBlocks: pointKs[i] as number,
    extraHits: hits[i] as number,
  }));
  const curve: WhatIfPoint[] = curveKs.map((k, i) => ({
    extraFraction: null,
    extraBlocks: k,
    extraHits: hits[pointKs.length + i] as number,
  }));
  return {
    source: s.name,
    dpRank: s.dpRank,
    medium: m.medium,
    peakResident: m.peak,
    capacityBlocks: capacity,
    capacityBasis: engine === undefined ? 'peak-resident' : 'engine',
    newStores: m.c.newStores,
    restores: Math.round(m.c.restores),
    thrashRestores: Math.round(m.c.thrashRestores),
    ghosts: m.ghosts.size,
    estimate: m.ghosts.estimate,
    storesAfterEvictionS:
      m.firstEvictionS === null
        ? null
        : Math.max(0, (m.lastStoreS ?? m.firstEvictionS) - m.firstEvictionS),
    points,
    curve,
  };
}

function figures(c: Counters, resident: number): StoreFigures {
  const seen = c.announcedHits + c.newStores;
  return {
    storedBlocks: c.storedBlocks,
    removedBlocks: c.removedBlocks,
    residentBlocks: resident,
    newStores: c.newStores,
    announcedHits: c.announcedHits,
    hitRatio: c.announcedHits > 0 && seen > 0 ? c.announcedHits / seen : null,
    restores: Math.round(c.restores),
    thrashRestores: Math.round(c.thrashRestores),
  };
}

function sumCounters(list: Counters[]): Counters {
  const out = newCounters();
  for (const c of list) {
    out.storedBlocks += c.storedBlocks;
    out.removedBlocks += c.removedBlocks;
    out.newStores += c.newStores;
    out.announcedHits += c.announcedHits;
    out.restores += c.restores;
    out.thrashRestores += c.thrashRestores;
  }
  return out;
}

function sum<T>(list: readonly T[], f: (x: T) => number): number {
  return list.reduce((n, x) => n + f(x), 0);
}
