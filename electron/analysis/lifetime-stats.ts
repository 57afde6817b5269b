// Lifetimes of one medium: count, nearest-rank percentiles and the DESIGN histogram, in bounded
// memory. Samples are kept exactly up to EXACT_SAMPLES; past that the percentiles come from a
// log-bucket sketch (DDSketch-style, 0.5% relative error) that sees every sample from the start.

import { LIFETIME_BOUNDS_S, type HistogramBucket } from '../../shared/analysis-report';

/** Lifetime samples kept exactly per medium. */
export const EXACT_SAMPLES = 1_000_000;

const ALPHA = 0.005;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LN_GAMMA = Math.log(GAMMA);
/** Sketch range: 1 ns to ~30 years; smaller (and negative) go to a zero bucket, larger clamp. */
const MIN_INDEX = Math.ceil(Math.log(1e-9) / LN_GAMMA);
const MAX_INDEX = Math.ceil(Math.log(1e9) / LN_GAMMA);

/** The percentiles a summary gives, ascending. */
const PERCENTILES = [0.5, 0.9, 0.99] as const;
type Percentile = (typeof PERCENTILES)[number];

/** Percentiles of one medium's lifetimes. */
export interface LifetimeSummary {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  histogram: HistogramBucket[];
  estimate: boolean;
}

/** The histogram bucket of a sample: the first bound above it (a sample equal to a bound goes on). */
export function lifetimeBucket(sec: number): number {
  for (let i = 0; i < LIFETIME_BOUNDS_S.length; i += 1)
    if (sec < (LIFETIME_BOUNDS_S[i] as number)) return i;
  return LIFETIME_BOUNDS_S.length;
}

/**
 * The samples taken by every part of one medium (its sources' LifetimeStats): they keep
 * EXACT_SAMPLES exactly between them, not each, so a fleet of sources stays in bounded memory.
 */
export interface SamplePool {
  n: number;
}

/** Lifetime samples of one medium (or of one source's share of it, drawing on a shared pool). */
export class LifetimeStats {
  private samples: Float64Array | null = new Float64Array(1024);
  /** The exact samples' PERCENTILES, until the next sample. */
  private picked: number[] | null = null;
  private n = 0;
  private readonly buckets = new Array<number>(LIFETIME_BOUNDS_S.length + 1).fill(0);
  /** Samples equal to each bound (in the next bucket above): Prometheus' `le` counts them in. */
  private readonly atBound = new Array<number>(LIFETIME_BOUNDS_S.length).fill(0);
  /**
   * Made at the first sample past the bound (or a merge that needs it): 33 KB per part, and a
   * fleet has a part per (source, medium), most never past the bound.
   */
  private sketch: Float64Array | null = null;
  private sketchZero = 0;
  private total = 0;

  constructor(private readonly pool: SamplePool = { n: 0 }) {}

  /** One lifetime, seconds. */
  add(sec: number): void {
    this.n += 1;
    this.pool.n += 1;
    this.total += sec;
    const b = lifetimeBucket(sec);
    this.buckets[b] = (this.buckets[b] as number) + 1;
    if (b > 0 && sec === LIFETIME_BOUNDS_S[b - 1])
      this.atBound[b - 1] = (this.atBound[b - 1] as number) + 1;
    this.picked = null;
    if (this.samples !== null) {
      if (this.pool.n <= EXACT_SAMPLES) {
        if (this.n > this.samples.length) {
          const grown = new Float64Array(Math.min(EXACT_SAMPLES, this.samples.length * 2));
          grown.set(this.samples);
          this.samples = grown;
        }
        this.samples[this.n - 1] = sec;
        return;
      }
      // Past the bound: the sketch is only read from here on, so it is built now from the
      // samples kept (a logarithm per sample saved on every session that stays below the bound).
      for (let i = 0; i < this.n - 1; i += 1) this.sketchAdd(this.samples[i] as number);
      this.samples = null;
    }
    this.sketchAdd(sec);
  }

  /** Count, p50/p90/p99 (sorted[ceil(p n) - 1]) and the histogram. */
  summary(): LifetimeSummary {
    const histogram = this.buckets.map((count, i) => ({
      upperS: i < LIFETIME_BOUNDS_S.length ? (LIFETIME_BOUNDS_S[i] as number) : null,
      count,
    }));
    const pick = (p: Percentile): number | null => (this.n === 0 ? null : this.quantile(p));
    return {
      count: this.n,
      p50: pick(0.5),
      p90: pick(0.9),
      p99: pick(0.99),
      histogram,
      estimate: this.samples === null,
    };
  }

  /** Bytes of its exact samples or its sketch (for the memory figures). */
  bytes(): number {
    return (this.samples?.byteLength ?? 0) + (this.sketch?.byteLength ?? 0);
  }

  /** Samples taken. */
  get count(): number {
    return this.n;
  }

  /** Samples kept exactly (0 once past the pool's bound). */
  get exactSamples(): number {
    return this.samples === null ? 0 : this.n;
  }

  /** This part leaves its pool (its source was removed): its samples no longer count there. */
  leavePool(): void {
    this.pool.n -= this.n;
  }

  /** Counts per bucket of LIFETIME_BOUNDS_S, then the open bucket (for /metrics). */
  bucketCounts(): readonly number[] {
    return this.buckets;
  }

  /** Per bound of LIFETIME_BOUNDS_S, the samples equal to it (counted in the bucket above it). */
  boundCounts(): readonly number[] {
    return this.atBound;
  }

  /** Sum of every lifetime, seconds (a Prometheus histogram's _sum). */
  get sumS(): number {
    return this.total;
  }

  /**
   * One medium's lifetimes from those of its sources: what a single LifetimeStats fed every
   * sample would hold (exact while all are and the count stays within EXACT_SAMPLES). Without
   * `samples`, the counts only (for /metrics: no copy of up to a million samples per scrape).
   */
  static merge(parts: readonly LifetimeStats[], samples = true): LifetimeStats {
    const out = new LifetimeStats();
    let exact = true;
    for (const p of parts) {
      out.n += p.n;
      out.total += p.total;
      for (let i = 0; i < out.buckets.length; i += 1)
        out.buckets[i] = (out.buckets[i] as number) + (p.buckets[i] as number);
      for (let i = 0; i < out.atBound.length; i += 1)
        out.atBound[i] = (out.atBound[i] as number) + (p.atBound[i] as number);
      if (p.samples === null) exact = false;
    }
    if (samples && exact && out.n <= EXACT_SAMPLES) {
      out.samples = new Float64Array(Math.max(1, out.n));
      let at = 0;
      for (const p of parts) {
        out.samples.set((p.samples as Float64Array).subarray(0, p.n), at);
        at += p.n;
      }
      return out;
    }
    // Past the bound: the sketch of every sample (a part still exact has built none yet).
    out.samples = null;
    if (!samples) return out;
    for (const p of parts) {
      if (p.samples !== null) {
        for (let i = 0; i < p.n; i += 1) out.sketchAdd(p.samples[i] as number);
        continue;
      }
      out.sketchZero += p.sketchZero;
      // A part of counts only (merged without samples) has no sketch: nothing to add.
      if (p.sketch === null) continue;
      const sketch = out.bins();
      for (let i = 0; i < sketch.length; i += 1)
        sketch[i] = (sketch[i] as number) + (p.sketch[i] as number);
    }
    return out;
  }

  private sketchAdd(sec: number): void {
    if (sec < 1e-9) this.sketchZero += 1;
    else {
      const i = Math.min(MAX_INDEX, Math.max(MIN_INDEX, Math.ceil(Math.log(sec) / LN_GAMMA)));
      const sketch = this.bins();
      sketch[i - MIN_INDEX] = (sketch[i - MIN_INDEX] as number) + 1;
    }
  }

  private bins(): Float64Array {
    return (this.sketch ??= new Float64Array(MAX_INDEX - MIN_INDEX + 1));
  }

  /** sorted[rank - 1] of the exact samples for each of PERCENTILES, by selection, not a sort. */
  private exactPicks(samples: Float64Array): number[] {
    const a = samples.slice(0, this.n);
    let lo = 0;
    // Ranks ascend, so each selection leaves what is below it on its left: the next one starts
    // past it.
    return PERCENTILES.map((p) => {
      const k = rankOf(p, this.n) - 1;
      selectNth(a, lo, this.n - 1, k);
      lo = k;
      return a[k] as number;
    });
  }

  private quantile(p: Percentile): number {
    const rank = rankOf(p, this.n);
    if (this.samples !== null) {
      this.picked ??= this.exactPicks(this.samples);
      return this.picked[PERCENTILES.indexOf(p)] as number;
    }
    let seen = this.sketchZero;
    if (seen >= rank) return 0;
    const sketch = this.bins();
    for (let j = 0; j < sketch.length; j += 1) {
      seen += sketch[j] as number;
      if (seen >= rank) return (2 * GAMMA ** (j + MIN_INDEX)) / (GAMMA + 1);
    }
    return (2 * GAMMA ** MAX_INDEX) / (GAMMA + 1);
  }
}

/** The nearest rank of p among n samples (1-based). */
function rankOf(p: number, n: number): number {
  return Math.max(1, Math.ceil(p * n));
}

/**
 * Reorders a[lo..hi] so that a[k] is the value a sort would put there, nothing larger before it
 * and nothing smaller after (Hoare's selection, median of three): O(n), where a sort of a million
 * samples is O(n log n) at every report.
 */
export function selectNth(a: Float64Array, lo: number, hi: number, k: number): void {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    // Median of three as the pivot: sorted or reversed samples stay linear.
    if ((a[mid] as number) < (a[lo] as number)) swap(a, mid, lo);
    if ((a[hi] as number) < (a[lo] as number)) swap(a, hi, lo);
    if ((a[hi] as number) < (a[mid] as number)) swap(a, hi, mid);
    const pivot = a[mid] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i += 1;
      while ((a[j] as number) > pivot) j -= 1;
      if (i <= j) {
        swap(a, i, j);
        i += 1;
        j -= 1;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}
