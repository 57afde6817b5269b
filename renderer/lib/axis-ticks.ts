// Round axis ticks, as Grafana draws them: values at 1, 2 or 5 times a power of ten from 0, times
// on whole seconds, minutes or hours of the local clock. recharts' own steps read 0, 15, 45, 135
// and its time ticks fell on whatever second the data began. d3-scale picks the steps.

import { scaleLinear, scaleTime } from 'd3-scale';
import { EPOCH_MIN } from './format';

/**
 * About `count` round ticks from 0 up to the first at or past `max` (0 and 1 when there is nothing
 * above 0). `integers`: counts, whose axis has no ticks between whole numbers.
 */
export function valueTicks(max: number, integers: boolean, count = 5): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const ticks = scaleLinear().domain([0, top]).nice(count).ticks(count);
  return integers ? ticks.filter(Number.isInteger) : ticks;
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

/** The largest value of `keys` over `rows` (0 when there is none). */
export function maxOf(rows: readonly Record<string, number>[], keys: readonly string[]): number {
  let max = 0;
  for (const r of rows) {
    for (const k of keys) {
      const v = r[k];
      if (v !== undefined && v > max) max = v;
    }
  }
  return max;
}
