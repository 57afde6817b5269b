// The cache analysis' running figures as /metrics reads them: per (source, medium) new stores,
// re-stores, thrash re-stores and announced hits, duplicate stores per source, lifetimes per
// medium. Read from the analysis' state directly: its report() builds what-if curves and
// percentiles, which a scrape every few seconds does not need.

import { UNSPECIFIED_MEDIUM } from '../../shared/events';
import type { CacheAnalysis } from '../analysis/cache-analysis';
import type { EngineSourceReading } from './metrics-hub';
import type { EventSide } from './reconciliation';
import type { AnalysisMetrics } from './metrics-snapshot';

/** vLLM's name for its GPU tier, whose size num_gpu_blocks is. */
const GPU_MEDIUM = 'GPU';

/** The figures of `analysis` now. */
export function analysisMetrics(analysis: CacheAnalysis): AnalysisMetrics {
  const out: AnalysisMetrics = { media: [], duplicateStores: [], lifetimes: [] };
  for (const s of analysis.sources) {
    for (const m of s.media.values()) {
      out.media.push({
        source: s.name,
        medium: m.medium,
        newStores: m.c.newStores,
        restores: m.c.restores,
        thrashRestores: m.c.thrashRestores,
        announcedHits: m.c.announcedHits,
      });
    }
    out.duplicateStores.push({ source: s.name, count: s.duplicateStores });
  }
  for (const [medium, l] of analysis.lifetimeCounters()) {
    out.lifetimes.push({
      medium,
      counts: l.bucketCounts(),
      atBounds: l.boundCounts(),
      sumSec: l.sumS,
    });
  }
  return out;
}

/**
 * Gives the analysis each engine's num_gpu_blocks as the GPU capacity of its source (the what-if
 * figures then say they use the engine's capacity rather than the peak resident).
 */
export function useEngineCapacity(
  analysis: CacheAnalysis,
  readings: readonly EngineSourceReading[],
): void {
  for (const r of readings) {
    const blocks = r.figures?.numGpuBlocks;
    if (blocks !== undefined && blocks !== null && Number.isInteger(blocks) && blocks > 0)
      analysis.setCapacity(r.id, GPU_MEDIUM, blocks);
  }
}

/** Events that name no medium (older vLLM releases) are the GPU's too. */
const GPU_TIERS = [GPU_MEDIUM, UNSPECIFIED_MEDIUM];

/** What the events say of a source's GPU tier, for the reconciliation with its engine's metrics. */
export function eventSide(analysis: CacheAnalysis, source: string): EventSide {
  const s = analysis.sources.find((x) => x.name === source);
  const out: EventSide = {
    residentGpuBlocks: 0,
    kvCacheGroups: 0,
    announcedHits: 0,
    newStores: 0,
    capacity: null,
  };
  if (!s) return out;
  out.kvCacheGroups = s.groups.size;
  for (const medium of GPU_TIERS) {
    const m = s.media.get(medium);
    if (!m) continue;
    out.residentGpuBlocks += m.resident.size;
    out.announcedHits += m.c.announcedHits;
    out.newStores += m.c.newStores;
    const engine = analysis.capacityOf(source, medium);
    if (!out.capacity || engine !== undefined) {
      out.capacity =
        engine === undefined
          ? { blocks: m.peak, basis: 'peak-resident' }
          : { blocks: engine, basis: 'engine' };
    }
  }
  return out;
}
