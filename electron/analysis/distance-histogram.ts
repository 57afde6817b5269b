// Re-store counts by ghost distance, so that extra_hits(k) = #{re-stores with d < k} can be read
// for any k. Exact (one counter per distance) below DENSE_MAX, which covers every distance an
// exact ghost list can produce; estimated distances past it go to log-spaced buckets.

const DENSE_MAX = 1 << 21;
const FIRST_DENSE = 1024;
/** Log buckets per doubling past DENSE_MAX: about 1% wide. */
const PER_OCTAVE = 64;

/** Weighted counts of ghost distances. */
export class DistanceHistogram {
  private dense = new Float64Array(FIRST_DENSE);
  private denseUsed = 0;
  private readonly far = new Map<number, number>();
  private maxDistance = -1;
  total = 0;

  /** One re-store at distance d, standing for weight re-stores. */
  add(d: number, weight = 1): void {
    this.total += weight;
    if (d > this.maxDistance) this.maxDistance = d;
    if (d < DENSE_MAX) {
      if (d >= this.dense.length) {
        let n = this.dense.length;
        while (n <= d) n *= 2;
        const grown = new Float64Array(Math.min(n, DENSE_MAX));
        grown.set(this.dense);
        this.dense = grown;
      }
      this.dense[d] = (this.dense[d] as number) + weight;
      if (d >= this.denseUsed) this.denseUsed = d + 1;
      return;
    }
    const b = Math.floor(Math.log2(d / DENSE_MAX) * PER_OCTAVE);
    this.far.set(b, (this.far.get(b) ?? 0) + weight);
  }

  /** The largest distance seen, -1 before any. */
  get max(): number {
    return this.maxDistance;
  }

  /** #{re-stores with d < k} for each k (any order), in one sweep. */
  below(ks: readonly number[]): number[] {
    const order = ks.map((k, i) => [k, i] as const).sort((a, b) => a[0] - b[0]);
    const out = new Array<number>(ks.length).fill(0);
    let d = 0;
    let sum = 0;
    for (const [k, i] of order) {
      const upto = Math.min(k, this.denseUsed);
      for (; d < upto; d += 1) sum += this.dense[d] as number;
      let v = sum;
      if (k > DENSE_MAX) {
        // A far bucket counts once its lower bound is below k.
        for (const [b, w] of this.far) if (DENSE_MAX * 2 ** (b / PER_OCTAVE) < k) v += w;
      }
      out[i] = v;
    }
    return out;
  }
}
