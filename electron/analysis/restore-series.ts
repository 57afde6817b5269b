// Re-stores and thrash re-stores over event time, for a chart: bins of one second from the first
// re-store, merged in pairs (bins of 2 s, 4 s, ...) whenever the span would need more than
// MAX_BINS, so the series stays bounded whatever the session's length (or an absurd ts).

import type { RestoreSeries } from '../../shared/analysis-report';

/** Bins kept at most. */
export const MAX_BINS = 1800;

/** A bounded time series of re-store counts. */
export class RestoreBins {
  private start: number | null = null;
  private width = 1;
  private restores: number[] = [];
  private thrash: number[] = [];

  /** A re-store at ts (weight: how many it stands for), thrash when within the window. */
  add(ts: number, weight: number, isThrash: boolean): void {
    if (this.start === null) this.start = Math.floor(ts);
    // Time that goes back lands in the first bin rather than growing the series backwards.
    let i = Math.max(0, Math.floor((ts - this.start) / this.width));
    while (i >= MAX_BINS) {
      this.merge();
      i = Math.max(0, Math.floor((ts - this.start) / this.width));
    }
    while (this.restores.length <= i) {
      this.restores.push(0);
      this.thrash.push(0);
    }
    this.restores[i] = (this.restores[i] as number) + weight;
    if (isThrash) this.thrash[i] = (this.thrash[i] as number) + weight;
  }

  /** The series as plain arrays (rounded where weights are estimates). */
  snapshot(): RestoreSeries {
    return {
      startS: this.start,
      binS: this.width,
      restores: this.restores.map(Math.round),
      thrashRestores: this.thrash.map(Math.round),
    };
  }

  private merge(): void {
    const pair = (a: number[]): number[] => {
      const out: number[] = [];
      for (let i = 0; i < a.length; i += 2) out.push((a[i] as number) + (a[i + 1] ?? 0));
      return out;
    };
    this.restores = pair(this.restores);
    this.thrash = pair(this.thrash);
    this.width *= 2;
  }
}
