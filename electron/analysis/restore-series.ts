// Re-stores and thrash re-stores over event time, for a chart: bins of one second from the first
// re-store, merged in pairs (bins of 2 s, 4 s, ...) whenever the span would need more than
// MAX_BINS, so the series stays bounded whatever the session's length (or an absurd ts).

import { THRASH_WINDOWS_S, type RestoreSeries } from '../../shared/analysis-report';

/** Bins kept at most. */
export const MAX_BINS = 1800;

/**
 * A bounded time series of re-store counts. One made with an `anchor` (a source's share of the
 * analysis' series, added to just after it) starts where the anchor does, so its bins are whole
 * bins of the anchor's, and the anchor can be made again from the parts left (`sumOf`).
 */
export class RestoreBins {
  private start: number | null = null;
  private width = 1;
  private restores: number[] = [];
  private thrash: number[] = [];
  /** Per each of THRASH_WINDOWS_S, the re-stores within it (the Insights' window picker). */
  private thrashAt: number[][] = THRASH_WINDOWS_S.map(() => []);

  constructor(private readonly anchor: RestoreBins | null = null) {}

  /**
   * A re-store at ts (weight: how many it stands for), thrash when within the window, `gapS` after
   * its eviction.
   */
  add(ts: number, weight: number, isThrash: boolean, gapS: number): void {
    if (this.start === null) this.start = this.anchor?.start ?? Math.floor(ts);
    // Time that goes back lands in the first bin rather than growing the series backwards.
    let i = Math.max(0, Math.floor((ts - this.start) / this.width));
    while (i >= MAX_BINS) {
      this.merge();
      i = Math.max(0, Math.floor((ts - this.start) / this.width));
    }
    this.grow(i + 1);
    this.restores[i] = (this.restores[i] as number) + weight;
    if (isThrash) this.thrash[i] = (this.thrash[i] as number) + weight;
    for (let k = 0; k < THRASH_WINDOWS_S.length; k += 1) {
      if (gapS > (THRASH_WINDOWS_S[k] as number)) continue;
      const at = this.thrashAt[k] as number[];
      at[i] = (at[i] as number) + weight;
    }
  }

  /** The series as plain arrays (rounded where weights are estimates). */
  snapshot(): RestoreSeries {
    // Bins before the first re-store left (a removed source's) are not drawn: the series starts
    // at its first re-store, as if the source had never been there. The grid stays (sumOf).
    let lead = 0;
    while (lead < this.restores.length && this.restores[lead] === 0) lead += 1;
    const empty = lead === this.restores.length;
    return {
      startS: this.start === null || empty ? null : this.start + lead * this.width,
      binS: this.width,
      restores: this.restores.slice(lead).map(Math.round),
      thrashRestores: this.thrash.slice(lead).map(Math.round),
      thrashByWindow: THRASH_WINDOWS_S.map((windowS, k) => ({
        windowS,
        thrashRestores: (this.thrashAt[k] as number[]).slice(lead).map(Math.round),
      })),
    };
  }

  /**
   * Becomes the sum of `parts` (each made with this as its anchor): what is left once a source is
   * taken out. Its bins are then as wide as the widest part, the width what is left needs, not the
   * width the one taken out had made (bins stay on the same start: widths are powers of two).
   */
  sumOf(parts: readonly RestoreBins[]): void {
    let width = 1;
    for (const p of parts) if (p.start !== null) width = Math.max(width, p.width);
    this.width = width;
    this.restores = [];
    this.thrash = [];
    this.thrashAt = THRASH_WINDOWS_S.map(() => []);
    for (const p of parts) {
      if (p.start === null) continue;
      const per = width / p.width;
      for (let i = 0; i < p.restores.length; i += 1) {
        const j = Math.floor(i / per);
        this.grow(j + 1);
        this.restores[j] = (this.restores[j] as number) + (p.restores[i] as number);
        this.thrash[j] = (this.thrash[j] as number) + (p.thrash[i] as number);
        for (let k = 0; k < this.thrashAt.length; k += 1) {
          const at = this.thrashAt[k] as number[];
          at[j] = (at[j] as number) + ((p.thrashAt[k] as number[])[i] as number);
        }
      }
    }
    // Bins only the one taken out reached go (they grow back as re-stores come).
    let end = this.restores.length;
    while (end > 0 && this.restores[end - 1] === 0) end -= 1;
    this.restores.length = end;
    this.thrash.length = end;
    for (const at of this.thrashAt) at.length = end;
  }

  /** Makes every array n bins long at least (the new bins empty). */
  private grow(n: number): void {
    while (this.restores.length < n) {
      this.restores.push(0);
      this.thrash.push(0);
      for (const at of this.thrashAt) at.push(0);
    }
  }

  private merge(): void {
    const pair = (a: number[]): number[] => {
      const out: number[] = [];
      for (let i = 0; i < a.length; i += 2) out.push((a[i] as number) + (a[i + 1] ?? 0));
      return out;
    };
    this.restores = pair(this.restores);
    this.thrash = pair(this.thrash);
    this.thrashAt = this.thrashAt.map(pair);
    this.width *= 2;
  }
}
