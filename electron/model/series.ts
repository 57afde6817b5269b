// Building a chart series from the bin table: a range back from the latest event time, merged
// into at most maxPoints aligned buckets (rates averaged, residency at the end of each bucket).

import type { Marker, Series, SeriesPoint, SeriesQuery } from '../../shared/api-types';
import {
  bucketStarts,
  chooseFactor,
  downsampleLast,
  downsampleMean,
} from '../../shared/downsample';
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

/** The series a query asks for. */
export function buildSeries(model: SeriesView, q: SeriesQuery): Series {
  const sources = [...model.sources];
  const media = [...model.media];
  const span = model.bins.span();
  if (!span) return { binSec: 1, sources, media, points: [], markers: [] };
  const to = span.last;
  const from =
    q.rangeSec === null
      ? span.first
      : Math.max(span.first, to - Math.max(1, Math.floor(q.rangeSec)) + 1);
  const k = chooseFactor(from, to, q.maxPoints ?? DEFAULT_MAX_POINTS);
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
