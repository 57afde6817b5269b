// What the Overview remembers across a change of tab: the range, a zoomed window, the pause, the
// hidden series, what the residency chart is split by, and the series last drawn (so paused charts
// come back as they were). The App holds it, above the view, because each view is unmounted when
// another tab is shown.

import type { Series } from '../../shared/api-types';
import type { TimeWindow } from '../lib/chart-zoom';

export interface OverviewState {
  rangeSec: number | null;
  /** A window chosen by dragging across a chart or with the scrubber; null: the range back from now. */
  zoom: TimeWindow | null;
  paused: boolean;
  /** Hidden series keys per chart (by the chart's test id). */
  hidden: Readonly<Record<string, ReadonlySet<string>>>;
  residentBy: 'medium' | 'source';
  /** The series last drawn, with the view (epoch) and query (as a key) it belongs to. */
  shown: { epoch: number; key: string; series: Series } | null;
  /** The whole session, coarse, for the scrubber. */
  outline: { epoch: number; series: Series } | null;
}

export const INITIAL_OVERVIEW: OverviewState = {
  rangeSec: 300,
  zoom: null,
  paused: false,
  hidden: {},
  residentBy: 'medium',
  shown: null,
  outline: null,
};

/** A state update, as React's setState takes it. */
export type OverviewUpdate = (update: (s: OverviewState) => OverviewState) => void;
