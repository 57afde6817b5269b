// What one scrape of /metrics reads: plain figures per source, taken at scrape time from the
// sources, the block tally, the engine pollers and (once handed in) the cache analysis.

import type { SourceCounters, SourceState } from '../../shared/api-types';
import type { EngineFigures } from './engine-figures';

/** Stored, removed and resident blocks of one source on one medium. */
export interface MediumTally {
  medium: string;
  stored: number;
  removed: number;
  resident: number;
}

/** One subscribed stream (one data-parallel rank of an engine) as its labels and figures. */
export interface SourceMetrics {
  /** The service's source id (a profile id, `#r` for rank r > 0): not a label, a join key. */
  id: string;
  /** The `source` label: the source's name, made unique within the scrape. */
  name: string;
  endpoint: string;
  dpRank: number;
  state: SourceState;
  counters: SourceCounters;
  /** Wall clock of the last message in epoch seconds (as SourceStatus has it), null before one. */
  lastMessageAt: number | null;
  media: MediumTally[];
}

/** The engine's own figures for one source, as last read from its metrics URL. */
export interface EngineSourceMetrics {
  /** Source id, as in SourceMetrics.id. */
  id: string;
  up: boolean;
  /** The latest read's figures; null unless it was good (stale figures are not exported). */
  figures: EngineFigures | null;
}

/** Per (source, medium) figures of the cache analysis. */
export interface AnalysisMediumCounts {
  /** Source id, as in SourceMetrics.id. */
  source: string;
  medium: string;
  newStores: number;
  restores: number;
  thrashRestores: number;
  announcedHits: number;
}

/** The lifetime histogram of one medium (over every source, as the analysis keeps it). */
export interface LifetimeHistogram {
  medium: string;
  /**
   * One count per bucket of LIFETIME_BOUNDS_S (a sample equal to a bound counts in the next one),
   * then the open bucket: LIFETIME_BOUNDS_S.length + 1 counts.
   */
  counts: readonly number[];
  /** Per bound, the samples equal to it (in the bucket above it): Prometheus' `le` takes them in. */
  atBounds: readonly number[];
  /** Sum of the samples, seconds. */
  sumSec: number;
}

/**
 * The hook for the cache analysis (electron/analysis): its report mapped to these figures, per
 * source id. Everything here is a running total since the source started.
 */
export interface AnalysisMetrics {
  media: AnalysisMediumCounts[];
  /** Duplicate stores (new stores of a hash another source held at that moment), per source. */
  duplicateStores: { source: string; count: number }[];
  lifetimes: LifetimeHistogram[];
}

/** Bytes held by one part of KV Scope's own structures (the hash id table, the ghost lists...). */
export interface MemoryPart {
  part: string;
  bytes: number;
}

/** Everything one scrape exports. */
export interface MetricsSnapshot {
  /** Wall clock (ms) the snapshot was taken. */
  at: number;
  sources: SourceMetrics[];
  engines: EngineSourceMetrics[];
  analysis: AnalysisMetrics | null;
  /** The service's memory by part, where it reports it (absent: no series). */
  memory?: MemoryPart[];
}
