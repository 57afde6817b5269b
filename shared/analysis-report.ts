// What the cache analysis reports (DESIGN.md, "Analysis"): plain JSON-safe data, bounded in size,
// so the same object can go to the renderer in a frame or be printed by `kvscope analyze`.

import type { HashKey } from './events';

/** Upper bounds (seconds) of the lifetime histogram; a last, open bucket follows. */
export const LIFETIME_BOUNDS_S: readonly number[] = [
  1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600,
];

/** The extra-capacity fractions of the what-if table. */
export const WHAT_IF_FRACTIONS: readonly number[] = [0.1, 0.25, 0.5, 1, 2];

/** Points of a what-if curve at most. */
export const WHAT_IF_CURVE_POINTS = 41;

/** Hot prefixes reported. */
export const HOT_PREFIXES_TOP = 10;

/** Sources (and so pairs) the overlap matrix covers, in order of first appearance. */
export const MAX_OVERLAP_SOURCES = 16;

/** Sources and what-if rows a report lists at most (a frame stays bounded). */
export const MAX_REPORT_SOURCES = 256;

/** Re-stores within this many seconds of their removal are thrash, unless configured. */
export const DEFAULT_THRASH_WINDOW_S = 60;

/** Thrash windows counted side by side, so a screen can switch between them without a replay. */
export const THRASH_WINDOWS_S: readonly number[] = [5, 10, 30, 60, 120, 300, 600];

/** Thrash re-stores for one window (a re-store within windowS seconds of its removal). */
export interface ThrashAtWindow {
  windowS: number;
  thrashRestores: number;
}

/** Store and hit counters, per source, per (source, medium) and in total. */
export interface StoreFigures {
  /** Sum of len(block_hashes) over BlockStored / BlockRemoved events. */
  storedBlocks: number;
  removedBlocks: number;
  /** |R| now. */
  residentBlocks: number;
  newStores: number;
  announcedHits: number;
  /** hits / (hits + new stores), null when no announced hit was seen. */
  hitRatio: number | null;
  /** Re-stores and thrash re-stores (rounded where a part is a sampled estimate). */
  restores: number;
  thrashRestores: number;
}

/** Cross-source figures of one source (as the storing side). */
export interface SourceCrossFigures {
  duplicateStores: number;
  routingRegretBlocks: number;
  routingRegretTokens: number;
}

/**
 * One KV cache group a source's events named. vLLM keeps a group per attention kind of a hybrid
 * model (full attention, sliding window, mamba...) and publishes each block once per group, its
 * `group_idx` saying which (an event without one is group 0, as vLLM reads it).
 */
export interface KvCacheGroupReport {
  group: number;
  /** Its kv_cache_spec_kind as last sent (full_attention, sliding_window...), null if none. */
  kind: string | null;
  /** Its kv_cache_spec_sliding_window as last sent, in tokens; null if none. */
  slidingWindow: number | null;
  storedBlocks: number;
  removedBlocks: number;
}

/** One source: a publisher stream (a data-parallel rank of a capture is its own source). */
export interface SourceReport extends StoreFigures, SourceCrossFigures {
  source: string;
  dpRank: number | null;
  clears: number;
  resets: number;
  media: string[];
  /** The KV cache groups its events named, by number (the first KV_CACHE_GROUPS_LISTED). */
  kvCacheGroups: KvCacheGroupReport[];
  /** How many groups its events named, up to KV_CACHE_GROUPS_TRACKED. */
  kvCacheGroupCount: number;
  /** Its events named more groups than are tracked (a hostile or garbled stream). */
  kvCacheGroupsCapped: boolean;
}

/**
 * Sources analysed at once: each holds a bit in every tracked hash's holder set and a row of the
 * pair matrix, so a file naming thousands (a hostile one) would grow both past any budget. A
 * fleet's ranks are far fewer (serve, capture and sim take 256 per engine).
 */
export const MAX_ANALYSED_SOURCES = 512;

/** A source's KV cache groups listed at most (vLLM's hybrid models have a few). */
export const KV_CACHE_GROUPS_LISTED = 16;
/** A source's KV cache groups counted at most: memory stays bounded whatever group_idx says. */
export const KV_CACHE_GROUPS_TRACKED = 64;

/** One point of the what-if table or curve. */
export interface WhatIfPoint {
  /** The fraction of the capacity added (null for curve points). */
  extraFraction: number | null;
  extraBlocks: number;
  extraHits: number;
}

/** Where the capacity of a what-if comes from. */
export type CapacityBasis = 'peak-resident' | 'engine';

/** What-if capacity of one (source, medium): an LRU ghost-list estimate. */
export interface WhatIfReport {
  source: string;
  dpRank: number | null;
  medium: string;
  peakResident: number;
  /** The capacity the fractions apply to: peak resident, or the engine's real one when given. */
  capacityBlocks: number;
  capacityBasis: CapacityBasis;
  newStores: number;
  restores: number;
  thrashRestores: number;
  /** Ghost entries now (an estimate when sampled). */
  ghosts: number;
  /** True once the ghost list passed its exact bound and a hash-sampled tail took over. */
  estimate: boolean;
  /**
   * Event seconds of stores since the first eviction into G (since a clear: the last one's),
   * null before any eviction: how long a re-store had to show up.
   */
  storesAfterEvictionS: number | null;
  /** k = ceil(f x capacity) for each f of WHAT_IF_FRACTIONS. */
  points: WhatIfPoint[];
  /** extra_hits over k, at most WHAT_IF_CURVE_POINTS points, k ascending. */
  curve: WhatIfPoint[];
}

/** One histogram bucket: samples below upperS (null: the open last bucket). */
export interface HistogramBucket {
  upperS: number | null;
  count: number;
}

/** Lifetimes of one medium, over every source. */
export interface LifetimeReport {
  medium: string;
  count: number;
  /** Nearest-rank percentiles, seconds; null without samples. */
  p50S: number | null;
  p90S: number | null;
  p99S: number | null;
  histogram: HistogramBucket[];
  /** True when the percentiles come from the sketch (within 1% relative error). */
  estimate: boolean;
}

/** Hashes held by both sources of a pair, now. */
export interface OverlapCell {
  sourceA: string;
  sourceB: string;
  blocks: number;
}

/** The router's view, any medium. */
export interface CrossSourceReport {
  duplicateStores: number;
  routingRegretBlocks: number;
  routingRegretTokens: number;
  sharedBlocksNow: number;
  duplicateBlocksNow: number;
  /** Every pair of the first MAX_OVERLAP_SOURCES sources, in order of first appearance. */
  overlap: OverlapCell[];
}

/** A parent hash and how many prefixes branch off it. */
export interface HotPrefix {
  hash: HashKey;
  fanOut: number;
  storeEvents: number;
  /** Blocks from the chain's root to this hash, inclusive, where the chain was seen from its root. */
  depthBlocks: number | null;
  depthTokens: number | null;
}

/** Re-stores over event time, for a chart: bins of binS seconds from startS. */
export interface RestoreSeries {
  startS: number | null;
  binS: number;
  restores: number[];
  /** Thrash re-stores per bin, within thrashWindowS of their eviction. */
  thrashRestores: number[];
  /** The same for each of THRASH_WINDOWS_S: the chart follows the window picked. */
  thrashByWindow: { windowS: number; thrashRestores: number[] }[];
}

/** What was read, and what was skipped. */
export interface InputCounts {
  batches: number;
  events: number;
  /** Events whose ts was not a usable time (not finite, or past MAX_ABS_TS_SEC): skipped. */
  badTsEvents: number;
  gaps: number;
  lostBatches: number;
  resets: number;
  clears: number;
  undecoded: number;
  eventErrors: number;
  /**
   * Removals whose ts came before the ts of the store that made the block resident (the clock
   * stepped back): no lifetime sample, counted here.
   */
  backwardRemovals: number;
}

/** Everything the Insights and `kvscope analyze` show. */
export interface AnalysisReport {
  thrashWindowS: number;
  /** The one KV cache group analysed (the others' events skipped), null for every group. */
  group: number | null;
  /** Batches of sources past the MAX_ANALYSED_SOURCES analysed at once: not analysed. */
  batchesPastSourceLimit: number;
  /** True when any figure is a sampled estimate (a ghost list past its bound, lifetimes sketched, hot prefixes pruned). */
  estimate: boolean;
  totals: StoreFigures;
  /** The first MAX_REPORT_SOURCES sources analysed (sourceCount says how many there are). */
  sources: SourceReport[];
  /** Sources analysed: past MAX_REPORT_SOURCES, `sources` lists only the first of them. */
  sourceCount: number;
  /** The first MAX_REPORT_SOURCES (source, medium) rows (whatIfCount says how many there are). */
  whatIf: WhatIfReport[];
  /** (source, medium) pairs analysed: past MAX_REPORT_SOURCES, `whatIf` lists the first. */
  whatIfCount: number;
  lifetimes: LifetimeReport[];
  crossSource: CrossSourceReport;
  hotPrefixes: HotPrefix[];
  /** False once the hot-prefix table was pruned to stay bounded (its counts may be low). */
  hotPrefixesExact: boolean;
  /** BlockStored events that named a parent, and those whose parent was resident in that source. */
  reuse: { storesWithParent: number; reuseStores: number };
  /** Thrash re-stores in total for each of THRASH_WINDOWS_S. */
  thrashByWindow: ThrashAtWindow[];
  restoreSeries: RestoreSeries;
  input: InputCounts;
}

/** The report's per-source or what-if list names only the first MAX_REPORT_SOURCES of its rows. */
export function listsCut(
  r: Pick<AnalysisReport, 'sources' | 'sourceCount' | 'whatIf' | 'whatIfCount'>,
): boolean {
  return r.sources.length < r.sourceCount || r.whatIf.length < r.whatIfCount;
}
