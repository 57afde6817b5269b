// Building a chart series from the bin table: a range back from the latest event time, merged
// into at most maxPoints aligned buckets (rates averaged, residency at the end of each bucket).
// A live series ends at the last complete bucket before "now" (event time moved on by the clock):
// the unfinished current second is never drawn as a whole one, and a silent stream falls to zero.

import type { Marker, Series, SeriesPoint, SeriesQuery } from '../../shared/api-types';
import {
  bucketStarts,
  chooseFactor,
  downsampleLast,
  downsampleMean,
} from '../../shared/downsample';
import { isEventTime } from '../../shared/event-bounds';
import { SERIES_BOUNDS } from '../../shared/schemas';
import { MAX_BINS, type BinTable } from './bin-table';

/** What a series is read from: the model's bins and the rows in them, nothing else. */
export interface SeriesView {
  bins: BinTable;
  sources: readonly string[];
  media: readonly string[];
  /** Per source: its rate rows, its resident-blocks level row and one such row per medium. */
  sourceRows: ReadonlyMap<
    string,
    {
      stored: number;
      removed: number;
      resident: number;
      residentIn: ReadonlyMap<string, { row: number }>;
      /** The chart time of its first batch (null: none yet). */
      firstTs: number | null;
    }
  >;
  markers: readonly Marker[];
}

/** Points per series when the query does not say. */
export const DEFAULT_MAX_POINTS = 600;

/** A second counts as complete this long after it ended, so batches still in flight are in it. */
export const SETTLE_SEC = 0.25;

/**
 * The query's range and points, clamped as the schema bounds them: a caller that skipped the
 * schema still gets at most SERIES_BOUNDS.maxPoints points over at most the held span.
 */
function clampQuery(q: SeriesQuery): {
  rangeSec: number | null;
  maxPoints: number;
  toTs: number | null;
} {
  const r = q.rangeSec;
  const rangeSec =
    r === null || !Number.isFinite(r) || r > SERIES_BOUNDS.maxRangeSec ? null : Math.max(1, r);
  const p = q.maxPoints;
  const maxPoints =
    p === undefined || !Number.isFinite(p)
      ? DEFAULT_MAX_POINTS
      : Math.min(SERIES_BOUNDS.maxPoints, Math.max(SERIES_BOUNDS.minPoints, Math.floor(p)));
  const toTs = q.toTs !== undefined && isEventTime(q.toTs) ? Math.ceil(q.toTs) : null;
  return { rangeSec, maxPoints, toTs };
}

/**
 * The series a query asks for; its work is bounded by MAX_BINS seconds, never by the range.
 * `nowTs` (live only) is the event time now: the series then ends at the last bucket complete by
 * then, however long ago the latest event was.
 */
export function buildSeries(model: SeriesView, query: SeriesQuery, nowTs?: number): Series {
  const sources = [...model.sources];
  // Only media a present source stored or removed in: a removed source leaves every legend.
  const media = model.media.filter((m) =>
    sources.some((s) => model.sourceRows.get(s)?.residentIn.has(m)),
  );
  const since = sources.map((s) => {
    const first = model.sourceRows.get(s)?.firstTs ?? null;
    return first === null ? null : Math.floor(first);
  });
  const span = model.bins.span();
  if (!span) return { binSec: 1, sources, since, media, points: [], markers: [] };
  const q = clampQuery(query);
  const live = nowTs !== undefined && Number.isFinite(nowTs);
  // The second `now` falls in is still filling: the last complete one is the second before it.
  let to = live ? Math.max(span.first - 1, Math.floor(nowTs - SETTLE_SEC) - 1) : span.last;
  // A zoomed window ends where it says, never past what is complete.
  if (q.toTs !== null) to = Math.max(span.first - 1, Math.min(to, q.toTs - 1));
  const range = (end: number): number =>
    Math.max(
      span.first,
      end - MAX_BINS + 1,
      q.rangeSec === null ? -Infinity : end - Math.floor(q.rangeSec) + 1,
    );
  let from = range(to);
  let k = chooseFactor(from, to, q.maxPoints);
  // A merged bucket is complete only when all its k seconds are: end at the last such bucket
  // (the shorter range may merge fewer seconds per point, so check again).
  while (live && k > 1 && (to + 1) % k !== 0) {
    to = Math.floor((to + 1) / k) * k - 1;
    from = range(to);
    k = chooseFactor(from, to, q.maxPoints);
  }
  // Live, markers up to now: a restart this second is a fact already, its second not drawn yet.
  const hi = live && q.toTs === null ? Math.max(to + 1, nowTs) : to + 1;
  if (to < from) {
    const markers = model.markers.filter((m) => m.t >= span.first && m.t < hi);
    return { binSec: k, sources, since, media, points: [], markers };
  }
  const n = to - from + 1;
  const starts = bucketStarts(from, n, k);
  const storedBy = sources.map((s) =>
    downsampleMean(model.bins.read(model.sourceRows.get(s)?.stored ?? -1, from, to), from, k),
  );
  const removedBy = sources.map((s) =>
    downsampleMean(model.bins.read(model.sourceRows.get(s)?.removed ?? -1, from, to), from, k),
  );
  // Per medium, the sum of the present sources' levels there (each downsampled as a level).
  const resident = media.map((m) => {
    const sum = new Array<number>(starts.length).fill(0);
    for (const s of sources) {
      const row = model.sourceRows.get(s)?.residentIn.get(m)?.row;
      if (row === undefined) continue;
      const level = downsampleLast(model.bins.read(row, from, to), from, k);
      for (let i = 0; i < sum.length; i += 1) sum[i] = (sum[i] ?? 0) + (level[i] ?? 0);
    }
    return sum;
  });
  const residentBy = sources.map((s) =>
    downsampleLast(model.bins.read(model.sourceRows.get(s)?.resident ?? -1, from, to), from, k),
  );
  const points: SeriesPoint[] = starts.map((t, i) => {
    const sb = storedBy.map((a) => a[i] ?? 0);
    const rb = removedBy.map((a) => a[i] ?? 0);
    return {
      t,
      stored: sb.reduce((a, b) => a + b, 0),
      removed: rb.reduce((a, b) => a + b, 0),
      storedBy: sb,
      removedBy: rb,
      resident: resident.map((a) => a[i] ?? 0),
      residentBy: residentBy.map((a) => a[i] ?? 0),
    };
  });
  const lo = starts[0] ?? from;
  const markers = model.markers.filter((m) => m.t >= lo && m.t < hi);
  return { binSec: k, sources, since, media, points, markers };
}
