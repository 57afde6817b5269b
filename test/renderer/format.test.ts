import { describe, expect, it } from 'vitest';
import {
  clockOffsetText,
  ellipsizeMiddle,
  formatAxis,
  formatAgo,
  formatBytes,
  formatClock,
  formatDateTime,
  formatDuration,
  formatInt,
  formatIso,
  formatPercent,
  heatAlpha,
  nameList,
  formatRate,
  nounFor,
  plural,
} from '../../renderer/lib/format';

describe('format', () => {
  it('says one point, not 1 points', () => {
    expect(plural(1, 'point')).toBe('1 point');
    expect(plural(0, 'point')).toBe('0 points');
    expect(nounFor(1, 'duplicate store')).toBe('duplicate store');
    expect(nounFor(2, 'block')).toBe('blocks');
    expect(plural(1200, 'point')).toBe('1,200 points');
    expect(plural(2, 'match', 'matches')).toBe('2 matches');
  });

  it('groups integer thousands and rounds', () => {
    expect(formatInt(1234567)).toBe('1,234,567');
    expect(formatInt(0)).toBe('0');
    expect(formatInt(12.6)).toBe('13');
    expect(formatInt(Number.NaN)).toBe('—');
  });

  it('gives rates one decimal when small and suffixes when large', () => {
    expect(formatRate(0)).toBe('0');
    expect(formatRate(3.14159)).toBe('3.1');
    expect(formatRate(250.4)).toBe('250');
    expect(formatRate(12_345)).toBe('12.3K');
    expect(formatRate(25_000_000)).toBe('25.0M');
  });

  it('labels axis ticks whole, or abbreviated on an axis that reaches 10,000, with no needless decimal', () => {
    expect(formatAxis(9876, false)).toBe('9,876');
    expect(formatAxis(5_000, true)).toBe('5K');
    expect(formatAxis(12_345, true)).toBe('12.3K');
    expect(formatAxis(10_000, true)).toBe('10K');
    expect(formatAxis(5_000_000, true)).toBe('5M');
    expect(formatAxis(1_500_000, true)).toBe('1.5M');
    expect(formatAxis(2_500_000_000, true)).toBe('2.5B');
    expect(formatAxis(-12_345, true)).toBe('-12.3K');
    expect(formatAxis(0, true)).toBe('0');
    expect(formatAxis(0.5, false)).toBe('0.5');
    expect(formatAxis(0.30000000000000004, false)).toBe('0.3');
    expect(formatAxis(Number.NaN, false)).toBe('—');
  });

  it('gives percentages one decimal, and 0% of nothing', () => {
    expect(formatPercent(1, 8)).toBe('12.5%');
    expect(formatPercent(0.4321)).toBe('43.2%');
    expect(formatPercent(3, 0)).toBe('0%');
    // Some, but under a tenth of a percent, is not 0.0%; all but a sliver is not 100.0%.
    expect(formatPercent(3, 1_000_000)).toBe('<0.1%');
    expect(formatPercent(0, 1_000_000)).toBe('0.0%');
    expect(formatPercent(999_999, 1_000_000)).toBe('>99.9%');
    expect(formatPercent(5, 5)).toBe('100.0%');
  });

  it('formats bytes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });

  it("says a source's clock offset: behind, ahead, or no epoch time", () => {
    expect(clockOffsetText(30)).toBe('its clock is 30 s behind');
    expect(clockOffsetText(-125)).toBe('its clock is 2m 05s ahead');
    expect(clockOffsetText(1_764_979_000)).toBe('its clock is not epoch time');
  });

  it('formats durations from milliseconds to days', () => {
    expect(formatDuration(0.25)).toBe('250 ms');
    expect(formatDuration(4.5)).toBe('4.50 s');
    expect(formatDuration(42.25)).toBe('42.3 s');
    expect(formatDuration(245)).toBe('4m 05s');
    expect(formatDuration(7380)).toBe('2h 03m');
    expect(formatDuration(3 * 86400 + 4 * 3600)).toBe('3d 04h');
    expect(formatDuration(null)).toBe('—');
  });

  it('rounds a duration to the unit it shows, never down, and picks the form by the rounded value', () => {
    // analyze says 99.5 s: the screen says it to the second, not a second under.
    expect(formatDuration(99.5)).toBe('1m 40s');
    expect(formatDuration(119.6)).toBe('2m 00s');
    expect(formatDuration(59.96)).toBe('1m 00s');
    expect(formatDuration(9.996)).toBe('10.0 s');
    expect(formatDuration(0.9996)).toBe('1.00 s');
    expect(formatDuration(3599.6)).toBe('1h 00m');
    expect(formatDuration(5430)).toBe('1h 31m');
    expect(formatDuration(86399)).toBe('1d 00h');
    expect(formatDuration(-99.5)).toBe('-1m 40s');
  });

  it('shows non-epoch timestamps as offsets instead of 1970 clock times', () => {
    expect(formatClock(12.34)).toBe('t+12.3s');
    // A relative clock below its zero reads with its own sign, and a rounded zero as t+0.0s.
    expect(formatClock(-1)).toBe('t-1.0s');
    expect(formatClock(-0.04)).toBe('t+0.0s');
    expect(formatClock(-2.5, true)).toBe('t-2.500s');
    expect(formatDateTime(-3)).toBe('t-3.000s');
    expect(formatIso(-12.5)).toBe('t-12.500s');
    expect(formatClock(1_700_000_000)).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(formatClock(1_700_000_000.5, true)).toMatch(/^\d\d:\d\d:\d\d\.500$/);
  });

  it('gives event times in ISO 8601 UTC, and offsets for non-epoch clocks', () => {
    expect(formatIso(1_700_000_000.25)).toBe('2023-11-14T22:13:20.250Z');
    expect(formatIso(12.5)).toBe('t+12.500s');
    expect(formatIso(Number.POSITIVE_INFINITY)).toBe('—');
    expect(formatIso(1e300)).toBe('—');
  });

  it('says how long ago relative to the latest event time', () => {
    expect(formatAgo(100, 100.2)).toBe('now');
    expect(formatAgo(100, 160)).toBe('1m 00s ago');
    expect(formatAgo(100, 112.7)).toBe('12 s ago');
    expect(formatAgo(null, 160)).toBe('—');
  });

  it('ellipsizes long hashes in the middle and keeps short ones whole', () => {
    const h = '18446744073709551615';
    expect(ellipsizeMiddle(h, 40)).toBe(h);
    const short = ellipsizeMiddle(h, 11);
    expect(short).toHaveLength(11);
    expect(short).toBe('18446…51615');
  });

  it('names a few and counts the rest', () => {
    expect(nameList([])).toBe('');
    expect(nameList(['a GPU', 'b GPU'])).toBe('a GPU, b GPU');
    const many = Array.from({ length: 1_300 }, (_, i) => `engine-${i} GPU`);
    expect(nameList(many.slice(0, 6))).toBe(many.slice(0, 6).join(', '));
    expect(nameList(many)).toBe(`${many.slice(0, 6).join(', ')} and 1,294 more`);
    expect(nameList(many, 2)).toBe('engine-0 GPU, engine-1 GPU and 1,298 more');
  });

  it('tints a heatmap cell by the square root of its share, and leaves none blank', () => {
    expect(heatAlpha(0, 20_000)).toBeNull();
    expect(heatAlpha(5, 0)).toBeNull();
    expect(heatAlpha(20_000, 20_000)).toBe('0.670');
    // 175 of 20,000 is tinted clearly past the floor (0.08 on the linear scale before: 0.085).
    expect(Number(heatAlpha(175, 20_000))).toBeGreaterThan(0.16);
    expect(Number(heatAlpha(1_000, 20_000))).toBeGreaterThan(Number(heatAlpha(175, 20_000)));
  });
});
