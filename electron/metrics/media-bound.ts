// A bound on /metrics' medium label: a publisher that names hundreds of media (a bug, or a medium
// per request) would make six series per (source, medium) each, thousands in all. The first
// MAX_MEDIA_LABELS media of a source (in order of appearance, so a series keeps its medium) are
// exported as they are; the rest are summed into one medium "other", so every block stays counted
// and a counter made of the same media stays monotonic.

/** Media per source (and lifetime histograms) exported under their own name at most. */
export const MAX_MEDIA_LABELS = 16;

/** The medium label of the media past MAX_MEDIA_LABELS, summed. */
export const OTHER_MEDIUM = 'other';

/**
 * `rows` (one medium's figures each, in order of appearance) with the media past `max` summed by
 * `add` into one row named OTHER_MEDIUM (a kept medium of that name takes them: one series).
 */
export function foldMedia<T extends { medium: string }>(
  rows: readonly T[],
  add: (a: T, b: T) => T,
  max = MAX_MEDIA_LABELS,
): T[] {
  if (rows.length <= max) return [...rows];
  const out = rows.slice(0, max);
  let at = out.findIndex((r) => r.medium === OTHER_MEDIUM);
  for (const r of rows.slice(max)) {
    if (at < 0) {
      at = out.push({ ...r, medium: OTHER_MEDIUM }) - 1;
    } else {
      out[at] = { ...add(out[at] as T, r), medium: OTHER_MEDIUM };
    }
  }
  return out;
}

/** foldMedia within each source of `rows` (grouped by `source`, sources in order of appearance). */
export function foldMediaPerSource<T extends { medium: string; source: string }>(
  rows: readonly T[],
  add: (a: T, b: T) => T,
  max = MAX_MEDIA_LABELS,
): T[] {
  const bySource = new Map<string, T[]>();
  for (const r of rows) {
    const list = bySource.get(r.source);
    if (list) list.push(r);
    else bySource.set(r.source, [r]);
  }
  return [...bySource.values()].flatMap((list) => foldMedia(list, add, max));
}
