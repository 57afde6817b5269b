// The one place a source's numbers are put together: its health (from the source) and what the
// live model holds of it.

import type { SourceHealth, SourceStatus } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';

/** Whether a source's numbers are only its last known state (it is not receiving now). */
export function isStale(h: SourceHealth): boolean {
  return h.state !== 'connected';
}

/** Every source as the screens show it; atTs is the live event time now, nowMs the wall clock. */
export function sourceStatuses(
  health: readonly SourceHealth[],
  model: CacheModel,
  atTs: number | undefined,
  nowMs: number,
): SourceStatus[] {
  return health.map((h) => ({
    ...h,
    ...model.sourceStats(h.id, atTs),
    stale: isStale(h),
    ageSec: h.lastMessageAt === null ? null : Math.max(0, nowMs / 1000 - h.lastMessageAt),
  }));
}
