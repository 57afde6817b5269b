// The rates of a view as CSV: one row per point, stored/removed per second per source and in
// total, resident blocks per medium.

import type { SeriesQuery } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';

const cell = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const n = (v: number): string => String(Math.round(v * 1000) / 1000);

/** CSV text of the model's series for q (default: whole session, up to 48 h of 1 s points). */
export function ratesCsv(
  model: CacheModel,
  q: SeriesQuery = { rangeSec: null, maxPoints: 48 * 3600 },
): string {
  const s = model.series(q);
  const head = ['time_s', 'stored_per_s', 'removed_per_s'];
  for (const src of s.sources) head.push(`stored_per_s[${src}]`, `removed_per_s[${src}]`);
  for (const m of s.media) head.push(`resident[${m}]`);
  const lines = [head.map(cell).join(',')];
  for (const p of s.points) {
    const row = [String(p.t), n(p.stored), n(p.removed)];
    s.sources.forEach((_, i) => row.push(n(p.storedBy[i] ?? 0), n(p.removedBy[i] ?? 0)));
    for (const r of p.resident) row.push(String(r));
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
