// The engine's own metrics beside what its events say, per source with a metrics URL: resident
// blocks from the events against kv_cache_usage_perc x num_gpu_blocks, the engine's prefix-cache
// hit rate (overall and over the last minute) against the announced hits, preemptions over time,
// and the capacity the what-if analysis uses. Plain data for the Overview's panel.

import type { EngineReconciliation } from '../../shared/api-types';
import { HIT_RATE_WINDOW_SEC, type EngineHistory } from './engine-history';
import type { EngineSourceReading } from './metrics-hub';

/** What the events say of one source. */
export interface EventSide {
  /** Resident blocks of its GPU tier (medium GPU, or no medium named). */
  residentGpuBlocks: number;
  /** KV cache groups its events named. */
  kvCacheGroups: number;
  announcedHits: number;
  newStores: number;
  /** The capacity the what-if analysis uses for the GPU tier, and where it comes from. */
  capacity: EngineReconciliation['whatIfCapacity'];
}

/** One entry per source whose profile names a metrics URL, in the order of `readings`. */
export function reconcile(
  readings: readonly EngineSourceReading[],
  history: EngineHistory,
  events: (source: string) => EventSide,
): EngineReconciliation[] {
  return readings.map((r) => {
    const f = r.figures;
    const e = events(r.id);
    const usage = f?.kvCacheUsage ?? null;
    const gpuBlocks = f?.numGpuBlocks ?? null;
    const queries = f?.prefixCacheQueries ?? null;
    const hits = f?.prefixCacheHits ?? null;
    const announced = e.announcedHits + e.newStores;
    return {
      source: r.id,
      url: r.url,
      ok: r.ok,
      message: r.message,
      readAt: r.readAt,
      numGpuBlocks: gpuBlocks,
      blockSize: f?.blockSize ?? null,
      usage,
      engineUsedBlocks: usage === null || gpuBlocks === null ? null : Math.round(usage * gpuBlocks),
      eventResidentBlocks: e.residentGpuBlocks,
      kvCacheGroups: e.kvCacheGroups,
      hitRate:
        queries !== null && hits !== null && queries > 0 ? Math.min(1, hits / queries) : null,
      windowHitRate: history.windowHitRate(r.id),
      windowSec: HIT_RATE_WINDOW_SEC,
      announcedHits: e.announcedHits,
      newStores: e.newStores,
      announcedHitRatio: announced > 0 ? e.announcedHits / announced : null,
      preemptions: f?.preemptions ?? null,
      preemptionSteps: history.preemptionSteps(r.id),
      whatIfCapacity: e.capacity,
    };
  });
}
