// Reading a series' points the same way in the charts and the rates CSV.

import type { Series } from './api-types';

/** Whether a point of a series ends before its source's first batch (it has no value of it). */
export function beforeSource(series: Series, t: number, source: number): boolean {
  const since = series.since?.[source];
  return since != null && t + series.binSec <= since;
}
