// Pure downsampling of per-second bins into at most maxPoints points. Buckets are aligned to
// multiples of the factor in absolute seconds, so live charts do not jitter as data arrives.

/** The merge factor k (seconds per point) so that the aligned buckets over [first, last] fit in maxPoints. */
export function chooseFactor(firstSec: number, lastSec: number, maxPoints: number): number {
  const n = lastSec - firstSec + 1;
  const cap = Math.max(1, Math.floor(maxPoints));
  if (n <= 0) return 1;
  let k = Math.max(1, Math.ceil(n / cap));
  while (Math.floor(lastSec / k) - Math.floor(firstSec / k) + 1 > cap) k += 1;
  return k;
}

/** Start second of each aligned bucket covering [firstSec, firstSec + n - 1] at factor k. */
export function bucketStarts(firstSec: number, n: number, k: number): number[] {
  if (n <= 0) return [];
  const lastSec = firstSec + n - 1;
  const out: number[] = [];
  for (let b = Math.floor(firstSec / k); b <= Math.floor(lastSec / k); b += 1) out.push(b * k);
  return out;
}

/**
 * Merge per-second rates (values[i] is second firstSec + i) into aligned buckets of k seconds:
 * the mean over the k seconds, counting seconds outside the data as zeros, so that
 * sum(point * k) equals sum(values): totals are conserved.
 */
export function downsampleMean(values: ArrayLike<number>, firstSec: number, k: number): number[] {
  const n = values.length;
  if (n === 0) return [];
  const base = Math.floor(firstSec / k);
  const out = new Array<number>(Math.floor((firstSec + n - 1) / k) - base + 1).fill(0);
  for (let i = 0; i < n; i += 1) {
    const b = Math.floor((firstSec + i) / k) - base;
    out[b] = (out[b] ?? 0) + (values[i] ?? 0);
  }
  for (let b = 0; b < out.length; b += 1) out[b] = (out[b] ?? 0) / k;
  return out;
}

/** Merge per-second levels into aligned buckets of k seconds: the value of the bucket's last second. */
export function downsampleLast(values: ArrayLike<number>, firstSec: number, k: number): number[] {
  const n = values.length;
  if (n === 0) return [];
  const base = Math.floor(firstSec / k);
  const out = new Array<number>(Math.floor((firstSec + n - 1) / k) - base + 1).fill(0);
  for (let i = 0; i < n; i += 1) out[Math.floor((firstSec + i) / k) - base] = values[i] ?? 0;
  return out;
}
