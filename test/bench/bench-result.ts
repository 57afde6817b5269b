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
