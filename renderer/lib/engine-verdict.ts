// What the engine's metrics and the events say together, in words: whether resident blocks from
// the events fit the engine's usage, and how the engine's hit rate and the announced hits compare.
// Pure.

import type { EngineReconciliation } from '../../shared/api-types';
import { formatInt, formatPercent } from './format';

export type ResidencyKind = 'unknown' | 'agree' | 'cached' | 'events-short' | 'events-over';

/** A fraction 0..1 as a percentage with one decimal; "—" when unknown. */
export function pct(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : formatPercent(v);
}

/**
 * The slack within which events and engine agree: 2% of the GPU's blocks (at least 16), since
 * usage also counts the partly filled last block of each running request, which is not stored yet.
 */
export function residencySlack(numGpuBlocks: number): number {
  return Math.max(16, Math.ceil(0.02 * numGpuBlocks));
}

/** Resident blocks from the events against the engine's usage x num_gpu_blocks, said plainly. */
export function residencyVerdict(r: EngineReconciliation): { kind: ResidencyKind; text: string } {
  if (r.engineUsedBlocks === null || r.numGpuBlocks === null) {
    return {
      kind: 'unknown',
      text: "The engine's metrics do not say its usage and num_gpu_blocks (yet): nothing to compare.",
    };
  }
  const slack = residencySlack(r.numGpuBlocks);
  const diff = r.eventResidentBlocks - r.engineUsedBlocks;
  if (r.eventResidentBlocks > r.numGpuBlocks + slack) {
    return {
      kind: 'events-over',
      text: `The events hold ${formatInt(r.eventResidentBlocks - r.numGpuBlocks)} blocks more than the GPU has: removals were lost (a gap that replay could not fill) or the engine restarted unseen.`,
    };
  }
  if (diff < -slack) {
    // A hybrid model's engine holds a block once per KV cache group; the events, its hash once.
    const why =
      r.kvCacheGroups > 1
        ? `its ${r.kvCacheGroups} KV cache groups (a hybrid model) each hold a block the events count once, by its hash; or KV Scope joined after the engine started`
        : 'KV Scope joined after the engine started (what was stored before is unseen) or stored events were lost';
    return {
      kind: 'events-short',
      text: `The engine holds ${formatInt(-diff)} blocks more than the events show: ${why}.`,
    };
  }
  if (diff > slack) {
    return {
      kind: 'cached',
      text: 'More resident by the events than in use by the engine: blocks of finished requests stay cached (reusable, not yet evicted) while usage counts only blocks that running requests hold. Normal when the engine is not full.',
    };
  }
  return {
    kind: 'agree',
    text: `Events and engine agree within ${formatInt(slack)} blocks (2% of the GPU's).`,
  };
}

/** The engine's hit rate beside the announced hits, and why they may differ. */
export function hitRateNote(r: EngineReconciliation): string {
  if (r.hitRate === null) return "The engine's metrics carry no prefix-cache counters.";
  if (r.announcedHits === 0 && r.hitRate > 0) {
    return 'The events announce no hits: vLLM re-announces reused blocks only with kv_cache_report_mode="full".';
  }
  return 'The engine counts tokens of every request; the events count blocks re-announced as stored.';
}
