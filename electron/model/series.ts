// Building a chart series from the bin table: a range back from the latest event time, merged
// into at most maxPoints aligned buckets (rates averaged, residency at the end of each bucket).

import type { Marker, Series, SeriesPoint, SeriesQuery } from '../../shared/api-types';
import {
  bucketStarts,
  chooseFactor,
  downsampleLast,
  downsampleMean,
} from '../../shared/downsample';
import { SERIES_BOUNDS } from '../../shared/schemas';
import type { BinTable } from './bin-table';

/** What a series is read from: the model's bins and the rows in them, nothing else. */
export interface SeriesView {
  bins: BinTable;
  sources: readonly string[];
  media: readonly string[];
  sourceRows: ReadonlyMap<string, { stored: number; removed: number }>;
  mediumRows: ReadonlyMap<string, number>;
  markers: readonly Marker[];
}

/** Points per series when the query does not say. */
export const DEFAULT_MAX_POINTS = 600;

/**
 * The query's range and points, clamped as the schema bounds them: a caller that skipped the
 * schema still gets at most SERIES_BOUNDS.maxPoints points over at most the held span.
 */
function clampQuery(q: SeriesQuery): { rangeSec: number | null; maxPoints: number } {
  const r = q.rangeSec;
  const rangeSec =
    r === null || !Number.isFinite(r) || r > SERIES_BOUNDS.maxRangeSec ? null : Math.max(1, r);
  const p = q.maxPoints;
  const maxPoints =
    p === undefined || !Number.isFinite(p)
      ? DEFAULT_MAX_POINTS
      : Math.min(SERIES_BOUNDS.maxPoints, Math.max(SERIES_BOUNDS.minPoints, Math.floor(p)));
  return { rangeSec, maxPoints };
}

/** The series a query asks for; its work is bounded by the bin table's span, never the range. */
export function buildSeries(model: SeriesView, query: SeriesQuery): Series {
  const sources = [...model.sources];
  const media = [...model.media];
  const span = model.bins.span();
  if (!span) return { binSec: 1, sources, media, points: [], markers: [] };
  const q = clampQuery(query);
  const to = span.last;
  const from =
    q.rangeSec === null ? span.first : Math.max(span.first, to - Math.floor(q.rangeSec) + 1);
  const k = chooseFactor(from, to, q.maxPoints);
  const n = to - from + 1;
  const starts = bucketStarts(from, n, k);
  const storedBy = sources.map((s) =>
    downsampleMean(model.bins.read(model.sourceRows.get(s)?.stored ?? -1, from, to), from, k),
  );
  const removedBy = sources.map((s) =>
    downsampleMean(model.bins.read(model.sourceRows.get(s)?.removed ?? -1, from, to), from, k),
  );
  const resident = media.map((m) =>
    downsampleLast(model.bins.read(model.mediumRows.get(m) ?? -1, from, to), from, k),
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
    };
  });
  const lo = starts[0] ?? from;
  const markers = model.markers.filter((m) => m.t >= lo && m.t < to + 1);
  return { binSec: k, sources, media, points, markers };
}
