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
