// The JSON of `kvscope analyze --json` (DESIGN.md, "Analysis"): the report with the snake_case
// keys listed there, hashes as text. A few keys beyond the list (hit_ratio, estimate flags,
// routing_regret_tokens, the curve, the re-store series, input counts) say more, never less.

import {
  listsCut,
  type AnalysisReport,
  type HistogramBucket,
  type SourceReport,
  type WhatIfPoint,
} from '../../shared/analysis-report';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const histogram = (h: HistogramBucket[]): Json =>
  h.map((b) => ({ upper_s: b.upperS, count: b.count }));

const point = (p: WhatIfPoint): Json =>
  p.extraFraction === null
    ? { extra_blocks: p.extraBlocks, extra_hits: p.extraHits }
    : { extra_fraction: p.extraFraction, extra_blocks: p.extraBlocks, extra_hits: p.extraHits };

function perSource(s: SourceReport): Json {
  return {
    dp_rank: s.dpRank,
    stored_blocks: s.storedBlocks,
    removed_blocks: s.removedBlocks,
    resident_blocks: s.residentBlocks,
    new_stores: s.newStores,
    announced_hits: s.announcedHits,
    hit_ratio: s.hitRatio,
    restores: s.restores,
    thrash_restores: s.thrashRestores,
    duplicate_stores: s.duplicateStores,
    routing_regret_blocks: s.routingRegretBlocks,
    routing_regret_tokens: s.routingRegretTokens,
    clears: s.clears,
    resets: s.resets,
    media: s.media,
    kv_cache_group_count: s.kvCacheGroupCount,
    kv_cache_groups_capped: s.kvCacheGroupsCapped,
    kv_cache_groups: s.kvCacheGroups.map((g) => ({
      group: g.group,
      kind: g.kind,
      sliding_window: g.slidingWindow,
      stored_blocks: g.storedBlocks,
      removed_blocks: g.removedBlocks,
    })),
  };
}

/** Lines of a file its reader did not apply (ReplayResult has them). */
export interface FileLinesNotApplied {
  /** Unreadable lines, skipped. */
  skippedLines: number;
  /** Lines of a batch read before. */
  duplicateLines: number;
}

/** What analyze knows of the file beside its report (the text prints it; the JSON keys it). */
export interface FileContext {
  /** Source id → the name the text shows, for the sources the file names. */
  names: ReadonlyMap<string, string>;
  /** Sources removed during the recording: left out of every figure. */
  removed: readonly string[];
  /** What the reader said of the file (a truncated end, lines skipped), as on stderr. */
  problems: readonly string[];
}

/**
 * The analyze JSON of a report: a plain object, ready for JSON.stringify. With the lines of the
 * file its reader did not apply, a `read` section says how many (the analysis never saw them);
 * with the file's context, the sources' names, those removed and the reader's problems, each only
 * where there are any (a script reads them instead of parsing stderr).
 */
export function toAnalyzeJson(
  r: AnalysisReport,
  read?: FileLinesNotApplied,
  file?: FileContext,
): { [key: string]: Json } {
  const lifetime: { [medium: string]: Json } = {};
  for (const l of r.lifetimes) {
    lifetime[l.medium] = {
      count: l.count,
      p50_s: l.p50S,
      p90_s: l.p90S,
      p99_s: l.p99S,
      histogram: histogram(l.histogram),
      estimate: l.estimate,
    };
  }
  const per_source: { [source: string]: Json } = {};
  for (const s of r.sources) per_source[s.source] = perSource(s);
  const t = r.totals;
  return {
    stored_blocks: t.storedBlocks,
    removed_blocks: t.removedBlocks,
    resident_blocks: t.residentBlocks,
    new_stores: t.newStores,
    announced_hits: t.announcedHits,
    hit_ratio: t.hitRatio,
    restores: t.restores,
    thrash_restores: t.thrashRestores,
    thrash_window_s: r.thrashWindowS,
    kv_cache_group: r.group,
    ...(r.batchesPastSourceLimit > 0
      ? { batches_past_source_limit: r.batchesPastSourceLimit }
      : {}),
    // Past MAX_REPORT_SOURCES, per_source and what_if list the first; the totals count them all.
    ...(listsCut(r)
      ? {
          lists_cut: {
            per_source: { listed: r.sources.length, of: r.sourceCount },
            what_if: { listed: r.whatIf.length, of: r.whatIfCount },
          },
        }
      : {}),
    estimate: r.estimate,
    lifetime,
    what_if: r.whatIf.map((w) => ({
      source: w.source,
      dp_rank: w.dpRank,
      medium: w.medium,
      peak_resident: w.peakResident,
      capacity_blocks: w.capacityBlocks,
      capacity_basis: w.capacityBasis === 'engine' ? 'engine' : 'peak_resident',
      new_stores: w.newStores,
      restores: w.restores,
      thrash_restores: w.thrashRestores,
      ghosts: w.ghosts,
      estimate: w.estimate,
      points: w.points.map(point),
      curve: w.curve.map(point),
    })),
    cross_source: {
      duplicate_stores: r.crossSource.duplicateStores,
      routing_regret_blocks: r.crossSource.routingRegretBlocks,
      routing_regret_tokens: r.crossSource.routingRegretTokens,
      shared_blocks_now: r.crossSource.sharedBlocksNow,
      duplicate_blocks_now: r.crossSource.duplicateBlocksNow,
      overlap: r.crossSource.overlap.map((c) => ({
        source_a: c.sourceA,
        source_b: c.sourceB,
        blocks: c.blocks,
      })),
    },
    hot_prefixes: r.hotPrefixes.map((h) => ({
      hash: h.hash,
      fan_out: h.fanOut,
      store_events: h.storeEvents,
      depth_blocks: h.depthBlocks,
      depth_tokens: h.depthTokens,
    })),
    hot_prefixes_exact: r.hotPrefixesExact,
    per_source,
    restore_series: {
      start_s: r.restoreSeries.startS,
      bin_s: r.restoreSeries.binS,
      restores: r.restoreSeries.restores,
      thrash_restores: r.restoreSeries.thrashRestores,
    },
    input: {
      batches: r.input.batches,
      events: r.input.events,
      bad_ts_events: r.input.badTsEvents,
      gaps: r.input.gaps,
      lost_batches: r.input.lostBatches,
      resets: r.input.resets,
      clears: r.input.clears,
      undecoded: r.input.undecoded,
      event_errors: r.input.eventErrors,
      // Only when there are any: the JSON of a file without a clock step stays as it was.
      ...(r.input.backwardRemovals > 0 ? { backward_removals: r.input.backwardRemovals } : {}),
    },
    ...(read
      ? {
          read: {
            skipped_lines: read.skippedLines,
            duplicate_lines: read.duplicateLines,
            ...(file && file.problems.length > 0 ? { problems: [...file.problems] } : {}),
          },
        }
      : {}),
    ...(file ? fileKeys(file, r) : {}),
  };
}

/** source_names (of the sources listed and removed, where a name is not the id) and removed_sources. */
function fileKeys(file: FileContext, r: AnalysisReport): { [key: string]: Json } {
  const names: { [source: string]: Json } = {};
  for (const id of [...r.sources.map((s) => s.source), ...file.removed]) {
    const name = file.names.get(id);
    if (name !== undefined && name !== id) names[id] = name;
  }
  return {
    ...(Object.keys(names).length > 0 ? { source_names: names } : {}),
    ...(file.removed.length > 0 ? { removed_sources: [...file.removed] } : {}),
  };
}
