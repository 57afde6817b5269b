// The state the analysis keeps per source and per (source, medium): R with store times, G, the
// peak of |R|, ghost distances and the counters the report is made of.

import { DistanceHistogram } from './distance-histogram';
import { GhostList } from './ghost-list';
import type { GhostIds } from './holdings';
import type { LifetimeStats } from './lifetime-stats';
import { ResidentSet } from './resident-set';
import { RestoreBins } from './restore-series';
import { THRASH_WINDOWS_S, type InputCounts } from '../../shared/analysis-report';

/** Counters kept per (source, medium) and per source. */
export interface Counters {
  storedBlocks: number;
  removedBlocks: number;
  newStores: number;
  announcedHits: number;
  /** Weighted: a sampled re-store stands for 1/rate of them. */
  restores: number;
  thrashRestores: number;
}

/** R and G of one (source, medium). */
export interface MediumState {
  medium: string;
  /** Resident hash -> ts of the new store that made it resident. */
  resident: ResidentSet;
  ghosts: GhostList;
  peak: number;
  distances: DistanceHistogram;
  c: Counters;
  /** Lifetimes of this (source, medium); the report merges them per medium. */
  life: LifetimeStats | null;
  /**
   * The ts of the first eviction into G (null before one, or since a clear) and the latest ts of
   * a store: a verdict that nothing re-stores needs stores for a while after evictions began.
   */
  firstEvictionS: number | null;
  lastStoreS: number | null;
}

/** What a source's events said of one KV cache group (see KvCacheGroupReport). */
export interface GroupState {
  kind: string | null;
  slidingWindow: number | null;
  storedBlocks: number;
  removedBlocks: number;
}

/** One source: its media and its own figures. */
export interface SourceState {
  idx: number;
  /** Its holder slot in Holdings (reused after it is removed, unlike idx). */
  slot: number;
  name: string;
  dpRank: number | null;
  media: Map<string, MediumState>;
  /** The same media as a list: a per-block check of the others iterates no Map. */
  mediaList: MediumState[];
  c: Counters;
  duplicateStores: number;
  regretBlocks: number;
  regretTokens: number;
  // Kept per source, not merged as they come, so that a removed source leaves these figures too.
  /** Its share of the analysis' input counts. */
  input: InputCounts;
  /** Thrash re-stores for each of THRASH_WINDOWS_S (sums of weights). */
  thrashAt: number[];
  /** BlockStored events that named a parent, and those whose parent the source held then. */
  reuse: { storesWithParent: number; reuseStores: number };
  /** Its re-stores over time, on the grid of the analysis' series (taken out when it goes). */
  series: RestoreBins;
  /** The KV cache groups its events named, by group_idx (at most KV_CACHE_GROUPS_TRACKED). */
  groups: Map<number, GroupState>;
  /** Its events named a group past those tracked. */
  groupsCapped: boolean;
}

/** Zeroed input counts. */
export function zeroInput(): InputCounts {
  return {
    batches: 0,
    events: 0,
    badTsEvents: 0,
    gaps: 0,
    lostBatches: 0,
    resets: 0,
    clears: 0,
    undecoded: 0,
    eventErrors: 0,
    backwardRemovals: 0,
  };
}

/** Zeroed counters. */
export function newCounters(): Counters {
  return {
    storedBlocks: 0,
    removedBlocks: 0,
    newStores: 0,
    announcedHits: 0,
    restores: 0,
    thrashRestores: 0,
  };
}

/** An empty (source, medium); its G is keyed by the ids of `ids`. */
export function newMedium(
  medium: string,
  ids: GhostIds,
  exactCap?: number,
  tailCap?: number,
): MediumState {
  return {
    medium,
    resident: new ResidentSet(),
    ghosts: new GhostList(ids, exactCap, tailCap),
    peak: 0,
    distances: new DistanceHistogram(),
    c: newCounters(),
    life: null,
    firstEvictionS: null,
    lastStoreS: null,
  };
}

/** A source seen for the first time; its series shares the start of `series`. */
export function newSource(
  idx: number,
  slot: number,
  name: string,
  series: RestoreBins,
): SourceState {
  return {
    idx,
    slot,
    name,
    dpRank: null,
    media: new Map(),
    mediaList: [],
    c: newCounters(),
    duplicateStores: 0,
    regretBlocks: 0,
    regretTokens: 0,
    input: zeroInput(),
    thrashAt: THRASH_WINDOWS_S.map(() => 0),
    reuse: { storesWithParent: 0, reuseStores: 0 },
    series: new RestoreBins(series),
    groups: new Map(),
    groupsCapped: false,
  };
}
