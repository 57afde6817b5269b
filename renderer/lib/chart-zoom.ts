// A zoomed time window over the charts, as Grafana's: chosen by dragging across a chart, moved
// with the scrubber under the charts, cleared by reset. Pure: times are event-time seconds.

import type { SeriesQuery } from '../../shared/api-types';

/** A window of event time, from inclusive to `to` exclusive, in seconds. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** Points per series on screen, whatever the window: the series API merges bins to this many. */
export const CHART_POINTS = 600;

/** A drag narrower than this many seconds is a click, not a zoom. */
export const MIN_ZOOM_SEC = 2;

/** The series query of a zoomed window, or of the picked range back from now. */
export function seriesQuery(zoom: TimeWindow | null, rangeSec: number | null): SeriesQuery {
  if (!zoom) return { rangeSec, maxPoints: CHART_POINTS };
  return {
    rangeSec: Math.max(1, Math.ceil(zoom.to - zoom.from)),
    toTs: zoom.to,
    maxPoints: CHART_POINTS,
  };
}

/**
 * The window a drag from `a` to `b` selects (either direction), its end taken to the end of the
 * point's bin; null when it is too narrow to be a zoom (then it was a click).
 */
export function dragWindow(a: number, b: number, binSec: number): TimeWindow | null {
  const from = Math.min(a, b);
  const to = Math.max(a, b) + binSec;
  return to - from >= Math.max(MIN_ZOOM_SEC, 2 * binSec) ? { from, to } : null;
}

/** A window of the same width moved by `delta` seconds, kept inside [span.from, span.to]. */
export function panWindow(w: TimeWindow, delta: number, span: TimeWindow): TimeWindow {
  const width = w.to - w.from;
  if (width >= span.to - span.from) return { ...span };
  const from = Math.min(Math.max(w.from + delta, span.from), span.to - width);
  return { from, to: from + width };
}

/** A window with one edge moved to `t`, at least MIN_ZOOM_SEC wide, inside the span. */
export function resizeWindow(
  w: TimeWindow,
  edge: 'from' | 'to',
  t: number,
  span: TimeWindow,
): TimeWindow {
  if (edge === 'from') {
    return { from: Math.max(span.from, Math.min(t, w.to - MIN_ZOOM_SEC)), to: w.to };
  }
  return { from: w.from, to: Math.min(span.to, Math.max(t, w.from + MIN_ZOOM_SEC)) };
}

/** Where t falls across the span, 0..1 (clamped). */
export function spanFraction(t: number, span: TimeWindow): number {
  const width = span.to - span.from;
  if (width <= 0) return 0;
  return Math.min(1, Math.max(0, (t - span.from) / width));
}

/** The time at fraction f across the span. */
export function spanTime(f: number, span: TimeWindow): number {
  return span.from + f * (span.to - span.from);
}
