// The cache analysis' running figures as /metrics reads them: per (source, medium) re-stores,
// thrash re-stores and announced hits, duplicate stores per source, lifetimes per medium. Read
// from the analysis' state directly: its report() builds what-if curves and percentiles, which a
// scrape every few seconds does not need.

import type { CacheAnalysis } from '../analysis/cache-analysis';
import type { EngineSourceReading } from './metrics-hub';
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
        restores: m.c.restores,
        thrashRestores: m.c.thrashRestores,
        announcedHits: m.c.announcedHits,
      });
    }
    out.duplicateStores.push({ source: s.name, count: s.duplicateStores });
  }
  for (const [medium, l] of analysis.lifetimes) {
    out.lifetimes.push({ medium, counts: l.bucketCounts(), sumSec: l.sumS });
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
