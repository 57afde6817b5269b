// The CSV and time helpers every export shares.

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
export function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line (with its line break) of values; null and undefined are empty fields. */
export function csvLine(values: readonly (string | number | null | undefined)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) line += ',';
    // A number never needs quotes: only text is looked at.
    if (typeof v === 'number') line += String(v);
    else if (v != null) line += csvCell(v);
  }
  return `${line}\n`;
}

/** Timestamps below this are not epoch seconds (a publisher with a monotonic clock). */
const EPOCH_MIN = 1e9;

/** An event time in ISO 8601 (UTC, milliseconds); "" when it is not epoch time. */
export function isoTime(ts: number): string {
  if (!Number.isFinite(ts) || ts < EPOCH_MIN) return '';
  const d = new Date(ts * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}
