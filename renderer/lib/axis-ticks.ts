// Round axis ticks, as Grafana draws them: values at 1, 2 or 5 times a power of ten from 0, times
// on whole seconds, minutes or hours of the local clock. recharts' own steps read 0, 15, 45, 135
// and its time ticks fell on whatever second the data began. d3-scale picks the steps.

import { scaleLinear, scaleTime } from 'd3-scale';
import { EPOCH_MIN, formatAxis } from './format';

/**
 * At most `count` round steps from 0 up to the first tick at or past `max` (0 and 1 when there is
 * nothing above 0). `integers`: counts, whose axis has no ticks between whole numbers.
 */
export function valueTicks(max: number, integers: boolean, count = 5): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  // d3's count is a hint (85,000 asked for 4 gives 0 to 100K by 20K): fewer are asked for until
  // the steps fit, since recharts hides labels that crowd and leaves a hole (no 80K).
  let ticks: number[] = [];
  for (let c = count; c >= 1; c -= 1) {
    ticks = scaleLinear().domain([0, top]).nice(c).ticks(c);
    if (ticks.length <= count + 1) break;
  }
  return integers ? ticks.filter(Number.isInteger) : ticks;
}

/** Ticks asked of a value axis 160 to 180 px long (the Insights' charts). */
export const SHORT_CHART_TICKS = 4;

/**
 * An axis from 0 on valueTicks, as recharts' YAxis (or numeric XAxis) props: `domain`, `ticks` and
 * their labels (formatAxis: abbreviated on an axis that reaches 10,000). A short chart asks for
 * fewer ticks: recharts hides labels that crowd, and what is left starts past 0.
 */
export function roundAxis(
  max: number,
  integers: boolean,
  count = 5,
): { domain: [number, number]; ticks: number[]; tickFormatter: (v: number) => string } {
  const ticks = valueTicks(max, integers, count);
  const top = ticks[ticks.length - 1] ?? 1;
  const compact = top >= 1e4;
  return { domain: [0, top], ticks, tickFormatter: (v) => formatAxis(v, compact) };
}

/**
 * About `count` ticks on round times within [from, to] (seconds): whole seconds at least, on the
 * local clock's round minutes and hours (d3's time scale), or round offsets for a clock that is
 * not epoch time ("t+10s").
 */
export function timeTicks(from: number, to: number, count = 6): number[] {
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return [];
  const ticks =
    from < EPOCH_MIN
      ? scaleLinear().domain([from, to]).ticks(count)
      : scaleTime()
          .domain([new Date(from * 1000), new Date(to * 1000)])
          .ticks(count)
          .map((d) => d.getTime() / 1000);
  // The axis says seconds (HH:MM:SS): ticks between them would print the same label twice.
  return ticks.filter(Number.isInteger);
}

/** The largest number under `keys` over `rows` (0 when there is none). */
export function maxOf<R extends object>(rows: readonly R[], keys: readonly (keyof R)[]): number {
  let max = 0;
  for (const r of rows) {
    for (const k of keys) {
      const v = r[k];
      if (typeof v === 'number' && v > max) max = v;
    }
  }
  return max;
}
