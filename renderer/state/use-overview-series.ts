// The Overview's two series: the charts' (the range back from now, or a zoomed window) and the
// whole session in miniature for the scrubber, both refreshed as frames arrive and both kept in
// the Overview's state so a paused or revisited Overview draws what it drew.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Series } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import { seriesQuery } from '../lib/chart-zoom';
import { useFrameState } from './frames';
import type { OverviewState, OverviewUpdate } from './overview-state';
import { useThrottledRefresh } from './use-throttled-refresh';

/** Points of the scrubber's outline: it is 40 px high, more would not show. */
const OUTLINE_POINTS = 300;

/** The charts' series and the scrubber's outline for the Overview's state; null while loading. */
export function useOverviewSeries(
  state: OverviewState,
  onChange: OverviewUpdate,
  epoch: number,
): { series: Series | null; outline: Series | null; error: string | null } {
  const { frame } = useFrameState();
  const { rangeSec, zoom, paused } = state;
  const [error, setError] = useState<string | null>(null);
  const query = useMemo(() => seriesQuery(zoom, rangeSec), [zoom, rangeSec]);
  const key = JSON.stringify(query);
  const shown = state.shown && state.shown.epoch === epoch ? state.shown : null;
  // Read in load, not a dependency: a drawn series must not start another fetch.
  const shownRef = useRef(shown);
  useEffect(() => {
    shownRef.current = shown;
  }, [shown]);

  const load = useCallback(async () => {
    // Back on a paused Overview: the charts stay as they were drawn.
    if (paused && shownRef.current?.key === key) return;
    try {
      const series = await bridge().getSeries(query);
      onChange((s) => ({ ...s, shown: { epoch, key, series } }));
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [query, key, paused, epoch, onChange]);
  useThrottledRefresh(load, 500, frame?.n, !paused);

  const loadOutline = useCallback(async () => {
    try {
      const series = await bridge().getSeries({ rangeSec: null, maxPoints: OUTLINE_POINTS });
      onChange((s) => ({ ...s, outline: { epoch, series } }));
    } catch {
      // The scrubber keeps its last outline; the charts say what failed.
    }
  }, [epoch, onChange]);
  useThrottledRefresh(loadOutline, 2000, frame?.n, !paused);

  const series = shown && shown.key === key ? shown.series : null;
  const outline = state.outline && state.outline.epoch === epoch ? state.outline.series : null;
  return { series, outline, error };
}
