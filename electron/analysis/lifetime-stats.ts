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

/** Lifetime samples of one medium. */
export class LifetimeStats {
  private samples: Float64Array | null = new Float64Array(1024);
  private sortedCache: Float64Array | null = null;
  private n = 0;
  private readonly buckets = new Array<number>(LIFETIME_BOUNDS_S.length + 1).fill(0);
  private readonly sketch = new Float64Array(MAX_INDEX - MIN_INDEX + 1);
  private sketchZero = 0;
  private total = 0;

  /** One lifetime, seconds. */
  add(sec: number): void {
    this.n += 1;
    this.total += sec;
    const b = lifetimeBucket(sec);
    this.buckets[b] = (this.buckets[b] as number) + 1;
    if (sec < 1e-9) this.sketchZero += 1;
    else {
      const i = Math.min(MAX_INDEX, Math.max(MIN_INDEX, Math.ceil(Math.log(sec) / LN_GAMMA)));
      this.sketch[i - MIN_INDEX] = (this.sketch[i - MIN_INDEX] as number) + 1;
    }
    if (this.samples === null) return;
    if (this.n > EXACT_SAMPLES) {
      this.samples = null;
      this.sortedCache = null;
      return;
    }
    if (this.n > this.samples.length) {
      const grown = new Float64Array(Math.min(EXACT_SAMPLES, this.samples.length * 2));
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.n - 1] = sec;
    this.sortedCache = null;
  }

  /** Count, p50/p90/p99 (sorted[ceil(p n) - 1]) and the histogram. */
  summary(): LifetimeSummary {
    const histogram = this.buckets.map((count, i) => ({
      upperS: i < LIFETIME_BOUNDS_S.length ? (LIFETIME_BOUNDS_S[i] as number) : null,
      count,
    }));
    const pick = (p: number): number | null => (this.n === 0 ? null : this.quantile(p));
    return {
      count: this.n,
      p50: pick(0.5),
      p90: pick(0.9),
      p99: pick(0.99),
      histogram,
      estimate: this.samples === null,
    };
  }

  /** Counts per bucket of LIFETIME_BOUNDS_S, then the open bucket (for /metrics). */
  bucketCounts(): readonly number[] {
    return this.buckets;
  }

  /** Sum of every lifetime, seconds (a Prometheus histogram's _sum). */
  get sumS(): number {
    return this.total;
  }

  private quantile(p: number): number {
    const rank = Math.max(1, Math.ceil(p * this.n));
    if (this.samples !== null) {
      this.sortedCache ??= this.samples.slice(0, this.n).sort();
      return this.sortedCache[rank - 1] as number;
    }
    let seen = this.sketchZero;
    if (seen >= rank) return 0;
    for (let j = 0; j < this.sketch.length; j += 1) {
      seen += this.sketch[j] as number;
      if (seen >= rank) return (2 * GAMMA ** (j + MIN_INDEX)) / (GAMMA + 1);
    }
    return (2 * GAMMA ** MAX_INDEX) / (GAMMA + 1);
  }
}
