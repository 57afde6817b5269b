// Number, time and duration formatting for the screens. Pure: no DOM, no React.

// Byte counts are shared with the command line, which says the same units.
export { formatBytes } from '../../shared/byte-size';

const intFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** An integer with thousands separators: 1234567 → "1,234,567". */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  return intFormat.format(Math.round(n));
}

// The one abbreviation style of every screen (the charts' axes): 12.3K, 4.5M, 1.2B (Intl's
// compact notation), without a decimal a round value does not need: 10K, not 10.0K.
const compactFormat = new Intl.NumberFormat('en-US', {
  notation: 'compact',
  maximumFractionDigits: 1,
});

/**
 * An axis tick: a fraction (a rate of 0.5) as it is, to 3 decimals; a whole number with thousands
 * separators ("9,876"), or abbreviated when `compact` ("5K", "12.3K", "1.5M"). An axis reaching
 * 10,000 abbreviates every tick, so that one axis does not read "5,000, 10K".
 */
export function formatAxis(n: number, compact: boolean): string {
  if (!Number.isFinite(n)) return '—';
  if (!Number.isInteger(n)) return String(Math.round(n * 1000) / 1000);
  return compact ? compactFormat.format(n) : formatInt(n);
}

// A rate moves every second: its one decimal stays (25.0M, 25.3M), so its width does not jump.
const rateFormat = new Intl.NumberFormat('en-US', {
  notation: 'compact',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** A per-second rate: one decimal under 100, whole numbers above, abbreviated past 10,000. */
export function formatRate(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (a >= 1e4) return rateFormat.format(n);
  if (a >= 100) return formatInt(n);
  if (a === 0) return '0';
  return n.toFixed(1);
}

/** A share as a percentage with one decimal: "12.5%"; "0%" when the whole is empty. */
export function formatPercent(part: number, whole = 1): string {
  if (!(whole > 0) || !Number.isFinite(part)) return '0%';
  const pct = (100 * part) / whole;
  // Some, but under a tenth of a percent: "0.0%" beside a count of 3 read as none.
  if (pct > 0 && pct < 0.05) return '<0.1%';
  if (pct < 100 && pct >= 99.95) return '>99.9%';
  return `${pct.toFixed(1)}%`;
}

/** A duration in seconds, readable: "850 ms", "12.3 s", "4m 05s", "2h 03m", "3d 04h". */
export function formatDuration(sec: number | null): string {
  if (sec == null || !Number.isFinite(sec)) return '—';
  const neg = sec < 0;
  const s = Math.abs(sec);
  // Rounded to the unit shown, and the form chosen by the rounded value: 99.5 s is 1m 40s, not
  // 1m 39s, and 59.96 s is 1m 00s, not 60.0 s.
  const ms = Math.round(s * 1000);
  const secs = Math.round(s);
  const mins = Math.round(s / 60);
  const hours = Math.round(s / 3600);
  let out: string;
  if (ms < 1000) out = `${ms} ms`;
  else if (Math.round(s * 100) < 1000) out = `${s.toFixed(2)} s`;
  else if (Math.round(s * 10) < 600) out = `${s.toFixed(1)} s`;
  else if (secs < 3600) out = `${Math.floor(secs / 60)}m ${pad2(secs % 60)}s`;
  else if (mins < 1440) out = `${Math.floor(mins / 60)}h ${pad2(mins % 60)}m`;
  else out = `${Math.floor(hours / 24)}d ${pad2(hours % 24)}h`;
  return neg ? `-${out}` : out;
}

/** How long ago, in whole seconds below a minute (a live age should not flicker). */
export function formatAge(sec: number): string {
  if (sec < 1) return 'just now';
  if (sec < 60) return `${Math.floor(sec)} s ago`;
  return `${formatDuration(sec)} ago`;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * A source's clock offset as the status line says it: "its clock is 30.0 s behind" (the seconds
 * KV Scope adds to chart it), or, past ten years, that its clock is no epoch time at all.
 */
export function clockOffsetText(seconds: number): string {
  if (Math.abs(seconds) >= 10 * 365 * 86_400) return 'its clock is not epoch time';
  const off = Math.abs(seconds);
  const span = off < 60 ? `${off} s` : formatDuration(off);
  return `its clock is ${span} ${seconds > 0 ? 'behind' : 'ahead'}`;
}

/** Timestamps below this are not epoch seconds (a publisher with a monotonic clock). */
export const EPOCH_MIN = 1e9;

/** A time that is not epoch time, as its offset from the clock's zero: "t+12.3s", "t-1.0s". */
function formatOffset(ts: number, digits: number): string {
  // A relative clock can be negative (set back, or before its start): "t-1.0s", never "t+-1.0s".
  const text = Math.abs(ts).toFixed(digits);
  return ts < 0 && Number(text) !== 0 ? `t-${text}s` : `t+${text}s`;
}

/** An event timestamp as a wall clock "HH:MM:SS" (local), or "t+12.3s" when it is not epoch time. */
export function formatClock(ts: number | null, withMillis = false): string {
  if (ts == null || !Number.isFinite(ts)) return '—';
  if (ts < EPOCH_MIN) return formatOffset(ts, withMillis ? 3 : 1);
  const d = new Date(ts * 1000);
  const base = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  return withMillis ? `${base}.${String(d.getMilliseconds()).padStart(3, '0')}` : base;
}

/** A full date and time for titles and tooltips. */
export function formatDateTime(ts: number | null): string {
  if (ts == null || !Number.isFinite(ts)) return '—';
  if (ts < EPOCH_MIN) return formatOffset(ts, 3);
  const d = new Date(ts * 1000);
  const date = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
  return `${date} ${formatClock(ts, true)}`;
}

/** An event time in ISO 8601 (UTC, milliseconds), or "t+12.345s" when it is not epoch time. */
export function formatIso(ts: number | null): string {
  if (ts == null || !Number.isFinite(ts)) return '—';
  if (ts < EPOCH_MIN) return formatOffset(ts, 3);
  const d = new Date(ts * 1000);
  return Number.isNaN(d.getTime()) ? '—' : d.toISOString();
}

/** "4m 05s ago" relative to the latest event time; "—" when either is unknown. */
export function formatAgo(ts: number | null, nowTs: number | null): string {
  if (ts == null || nowTs == null) return '—';
  const d = nowTs - ts;
  if (d < 1) return 'now';
  if (d < 60) return `${Math.floor(d)} s ago`;
  return `${formatDuration(d)} ago`;
}

/** Shortens a long string in the middle: "1234…7890"; returns it unchanged when short enough. */
export function ellipsizeMiddle(s: string, max: number): string {
  if (s.length <= max || max < 5) return s;
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${s.slice(0, head)}…${s.slice(s.length - tail)}`;
}

/** The noun for n of it: singular for exactly one. */
export function nounFor(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** "1 point", "3 points": a count with its noun, singular for exactly one. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${nounFor(n, one, many)}`;
}

/**
 * Names joined with commas, at most `max` of them and then "and N more": a line about hundreds of
 * sources names a few and counts the rest rather than filling the screen.
 */
export function nameList(names: readonly string[], max = 6): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${formatInt(names.length - max)} more`;
}

/**
 * A heatmap cell's tint for `v` of `max` (an alpha, 3 decimals), null for none: nothing shared is
 * left blank, and on a square-root scale a pair sharing 175 blocks beside one sharing 20,000 is
 * still tinted apart from none (on a linear one both read as the floor).
 */
export function heatAlpha(v: number, max: number): string | null {
  if (!(v > 0) || !(max > 0)) return null;
  return (0.12 + 0.55 * Math.sqrt(Math.min(1, v / max))).toFixed(3);
}
