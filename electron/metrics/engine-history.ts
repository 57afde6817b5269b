// The engine's counters over time, per source: what the reconciliation panel needs that one
// reading cannot say (the prefix-cache hit rate over the last minute, preemptions over time).
// Bounded: the newest MAX_SAMPLES reads per source (an hour at vLLM's 5 s poll).

import type { EngineFigures } from './engine-figures';

/** Reads kept per source. */
export const MAX_SAMPLES = 720;

/** The window of the recent hit rate, in seconds. */
export const HIT_RATE_WINDOW_SEC = 60;

interface Sample {
  /** Wall clock, ms. */
  at: number;
  queries: number | null;
  hits: number | null;
  preemptions: number | null;
}

/** Preemptions between one read and the one before it. */
export interface PreemptionStep {
  /** Wall clock of the read, seconds. */
  t: number;
  n: number;
}

/** The increase of a counter from a to b; a counter that went down was reset (an engine restart). */
function increase(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  return b >= a ? b - a : b;
}

/** Per-source samples of the engine's prefix-cache and preemption counters. */
export class EngineHistory {
  private readonly bySource = new Map<string, Sample[]>();

  /** Adds a good read of a source's figures (one older than the newest kept is ignored). */
  add(source: string, at: number, f: EngineFigures): void {
    let list = this.bySource.get(source);
    if (!list) {
      list = [];
      this.bySource.set(source, list);
    }
    const last = list.at(-1);
    if (last && at < last.at) return;
    const sample = {
      at,
      queries: f.prefixCacheQueries,
      hits: f.prefixCacheHits,
      preemptions: f.preemptions,
    };
    // Two reads in one millisecond: the later one stands.
    if (last && at === last.at) list[list.length - 1] = sample;
    else list.push(sample);
    if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
  }

  /** A removed source leaves the history. */
  forget(source: string): void {
    this.bySource.delete(source);
  }

  /**
   * hits / queries between the newest read and the oldest one within the window before it; null
   * with fewer than two reads there, or no query between them (nothing to rate).
   */
  windowHitRate(source: string, windowSec = HIT_RATE_WINDOW_SEC): number | null {
    const list = this.bySource.get(source) ?? [];
    const newest = list.at(-1);
    if (!newest) return null;
    const oldest = list.find((s) => s.at >= newest.at - windowSec * 1000);
    if (!oldest || oldest === newest) return null;
    const q = increase(oldest.queries, newest.queries);
    const h = increase(oldest.hits, newest.hits);
    if (q === null || h === null || q <= 0) return null;
    return Math.min(1, h / q);
  }

  /** Preemptions at each read since the one before it, oldest first. */
  preemptionSteps(source: string): PreemptionStep[] {
    const list = this.bySource.get(source) ?? [];
    const out: PreemptionStep[] = [];
    for (let i = 1; i < list.length; i += 1) {
      const a = list[i - 1];
      const b = list[i];
      if (!a || !b) continue;
      const n = increase(a.preemptions, b.preemptions);
      if (n !== null) out.push({ t: b.at / 1000, n });
    }
    return out;
  }
}
