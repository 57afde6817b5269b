// Reads a chart's tick labels in Chromium and checks they are round, as Grafana draws them.
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

const SUFFIX: Record<string, number> = { K: 1e3, M: 1e6, B: 1e9 };

/** A tick label's number: "9,876", "0.5", "12.3K", "1.5M" (NaN for a label that is none). */
function tickValue(label: string): number {
  const m = /^(-?[\d,.]+)([KMB]?)$/.exec(label.trim());
  if (!m) return NaN;
  return Math.round(Number((m[1] ?? '').replace(/,/g, '')) * (SUFFIX[m[2] ?? ''] ?? 1) * 1e6) / 1e6;
}

/**
 * The tick labels drawn in `chart` (a card or a panel holding one chart): its clock times
 * (HH:MM:SS) and its values (labels that are numbers; a category's, "< 2 s", is neither).
 * recharts 3 draws every tick label in one layer, apart from its axis: the clock's colons tell
 * them apart.
 */
export async function tickLabels(chart: Locator): Promise<{ times: string[]; values: number[] }> {
  const all = await chart.locator('.recharts-cartesian-axis-tick-value').allTextContents();
  return {
    times: all.filter((t) => t.includes(':')),
    values: all
      .filter((t) => !t.includes(':'))
      .map(tickValue)
      .filter(Number.isFinite),
  };
}

/** Values from 0 by one step of 1, 2 or 5 times a power of ten (recharts' own: 0, 15, 30, 45). */
export function expectRoundValues(values: number[]): void {
  expect(values.length).toBeGreaterThanOrEqual(3);
  expect(values[0]).toBe(0);
  const step = (values[1] ?? NaN) - (values[0] ?? NaN);
  expect(values.every((v, i) => v === i * step)).toBe(true);
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  expect([1, 2, 5]).toContain(Number(mantissa.toFixed(6)));
}
