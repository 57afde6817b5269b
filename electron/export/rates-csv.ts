// The rates of a view as CSV: one row per point with its ISO 8601 time, stored/removed per second
// in total and per source (by the source's name), resident blocks per source and per medium.

import type { SeriesQuery } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';
import { csvCell } from './csv';
import { beforeSource } from '../../shared/series-points';

const n = (v: number): string => String(Math.round(v * 1000) / 1000);

/** ISO 8601 (UTC) of an event time in seconds; a ts that is not epoch time still reads as one. */
function isoTime(sec: number): string {
  const d = new Date(sec * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** Column names of the sources: their names, with the id added where two share one. */
function sourceColumns(ids: readonly string[], names: ReadonlyMap<string, string>): string[] {
  const labels = ids.map((id) => names.get(id)?.trim() || id);
  return labels.map((l, i) =>
    labels.indexOf(l) !== labels.lastIndexOf(l) && l !== ids[i] ? `${l} (${ids[i]})` : l,
  );
}

/**
 * CSV text of the model's series for q (default: whole session, up to 48 h of 1 s points);
 * `names` maps source ids to the names the user gave them (unknown ids stay ids). nowTs, live:
 * the event time now, so the rows end at the last complete second, as the charts do (the second
 * still filling would read as a full one at a fraction of its rate); a file gives none.
 */
export function ratesCsv(
  model: CacheModel,
  names: ReadonlyMap<string, string> = new Map(),
  q: SeriesQuery = { rangeSec: null, maxPoints: 48 * 3600 },
  nowTs?: number,
): string {
  const s = model.series(q, nowTs);
  const cols = sourceColumns(s.sources, names);
  // time_s stays first (what scripts read before the ISO time was added).
  const head = ['time_s', 'time', 'bin_s', 'stored_per_s', 'removed_per_s'];
  for (const c of cols) head.push(`stored_per_s[${c}]`, `removed_per_s[${c}]`);
  for (const c of cols) head.push(`resident_by_source[${c}]`);
  for (const m of s.media) head.push(`resident[${m}]`);
  const lines = [head.map(csvCell).join(',')];
  for (const p of s.points) {
    const row = [String(p.t), isoTime(p.t), String(s.binSec), n(p.stored), n(p.removed)];
    // A source added later has empty cells before it came, not zeros.
    s.sources.forEach((_, i) =>
      beforeSource(s, p.t, i)
        ? row.push('', '')
        : row.push(n(p.storedBy[i] ?? 0), n(p.removedBy[i] ?? 0)),
    );
    s.sources.forEach((_, i) =>
      row.push(beforeSource(s, p.t, i) ? '' : String(p.residentBy[i] ?? 0)),
    );
    for (const r of p.resident) row.push(String(r));
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
