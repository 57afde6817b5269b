/** What one benchmark prints: measured figures and its ratio against a baseline run alongside. */
export interface BenchResult {
  title: string;
  /** Label and value, printed as a table. */
  rows: [label: string, value: string][];
  /** Cost of ours divided by the baseline's cost (lower is better). */
  ratio: number;
  /** The ratio must stay at or under this. */
  budget: number;
}

/** The middle value of a run's rounds (the upper middle for an even count; 0 for none). */
export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Ours against the baseline round by round, as a row's value: the median of the per-round ratios,
 * then each. Both run back to back in each round, so their ratio moves less with the machine's
 * speed over a run than the medians' ratio (the verdict) does.
 */
export function pairedRatios(ours: readonly number[], base: readonly number[]): string {
  const paired = ours.map((x, r) => x / (base[r] ?? NaN));
  return `median ${median(paired).toFixed(2)}x (${paired.map((x) => x.toFixed(2)).join(' / ')})`;
}
