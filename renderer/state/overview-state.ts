// What the Overview remembers across a change of tab: the range, the pause, the hidden series and
// the series last drawn (so paused charts come back as they were). The App holds it, above the
// view, because each view is unmounted when another tab is shown.

import type { Series } from '../../shared/api-types';

export interface OverviewState {
  rangeSec: number | null;
  paused: boolean;
  /** Hidden series keys per chart (by the chart's test id). */
  hidden: Readonly<Record<string, ReadonlySet<string>>>;
  /** The series last drawn, with the view (epoch) and range it belongs to. */
  shown: { epoch: number; range: number | null; series: Series } | null;
}

export const INITIAL_OVERVIEW: OverviewState = {
  rangeSec: 300,
  paused: false,
  hidden: {},
  shown: null,
};

/** A state update, as React's setState takes it. */
export type OverviewUpdate = (update: (s: OverviewState) => OverviewState) => void;
