import { describe, expect, it } from 'vitest';
import { maxOf, roundAxis, timeTicks, valueTicks } from '../../renderer/lib/axis-ticks';

describe('axis ticks', () => {
  it('steps values by 1, 2 or 5 times a power of ten from 0 to the first tick past the top', () => {
    // recharts' own steps for these read 0, 15, 30, 45, 60 and 0, 45, 90, 135, 180.
    expect(valueTicks(50, false)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(valueTicks(180, true)).toEqual([0, 50, 100, 150, 200]);
    expect(valueTicks(1_234_567, true)).toEqual([0, 500_000, 1_000_000, 1_500_000]);
    expect(valueTicks(33.3, false)).toEqual([0, 10, 20, 30, 40]);
    expect(valueTicks(0.9, false)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('takes at most the steps asked for, where d3 would give more', () => {
    // d3 asked for 4 steps to 85,000 gives 5 (to 100K by 20K): recharts hid the 80K of a short chart.
    expect(valueTicks(85_000, true, 4)).toEqual([0, 50_000, 100_000]);
    expect(valueTicks(85_000, true)).toEqual([0, 20_000, 40_000, 60_000, 80_000, 100_000]);
    expect(valueTicks(60, false)).toEqual([0, 20, 40, 60]);
    for (const max of [7, 99, 140, 6_123, 85_000, 1_234_567])
      for (const count of [3, 4, 5])
        expect(valueTicks(max, true, count).length).toBeLessThanOrEqual(count + 1);
  });

  it('labels an axis one way: abbreviated throughout once it reaches 10,000', () => {
    const big = roundAxis(18_000, true);
    expect(big.domain).toEqual([0, 20_000]);
    expect(big.ticks.map(big.tickFormatter)).toEqual(['0', '5K', '10K', '15K', '20K']);
    const small = roundAxis(7_400, true);
    expect(small.ticks.map(small.tickFormatter)).toEqual(['0', '2,000', '4,000', '6,000', '8,000']);
  });

  it('puts no tick between whole numbers on a count axis, and draws 0..1 for nothing', () => {
    expect(valueTicks(3, true)).toEqual([0, 1, 2, 3]);
    expect(valueTicks(0, true)).toEqual([0, 1]);
    expect(valueTicks(Number.NaN, false)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('puts times on round seconds and minutes of the local clock', () => {
    // 00:01:06 to 00:02:12 local time: recharts ticked 00:01:06, 00:01:11, 00:01:16, ...
    const day = new Date(2026, 0, 1).getTime() / 1000;
    const ticks = timeTicks(day + 66, day + 132);
    expect(ticks.map((t) => t - day)).toEqual([75, 90, 105, 120]);
    // An hour and a half: on the quarter hours; two days: every six hours from midnight.
    const long = timeTicks(day + 3_000, day + 8_400);
    expect(long.map((t) => (t - day) / 60)).toEqual([60, 75, 90, 105, 120, 135]);
    const days = timeTicks(day, day + 2 * 86_400);
    expect(days.map((t) => (t - day) / 3_600)).toEqual([0, 6, 12, 18, 24, 30, 36, 42, 48]);
  });

  it('keeps ticks on whole seconds (labels read HH:MM:SS) and rounds a clock that is not epoch time', () => {
    const day = new Date(2026, 0, 1).getTime() / 1000;
    expect(timeTicks(day + 10, day + 12).map((t) => t - day)).toEqual([10, 11, 12]);
    expect(timeTicks(3.4, 61.2)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(timeTicks(5, 5)).toEqual([]);
  });

  it('finds the largest value of the lines drawn, ignoring the rest', () => {
    const rows = [
      { t: 1, a: 3, b: 90 },
      { t: 2, a: 7 },
    ];
    expect(maxOf(rows, ['a'])).toBe(7);
    expect(maxOf(rows, ['a', 'b'])).toBe(90);
    expect(maxOf(rows, [])).toBe(0);
  });
});
