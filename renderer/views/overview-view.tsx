import { useCallback, useMemo, useState } from 'react';
import type { Series } from '../../shared/contract';
import { bridge, errorText } from '../bridge/bridge';
import {
  rateLines,
  rateRows,
  residentLines,
  residentRows,
  visibleMarkers,
} from '../lib/chart-rows';
import { chartColors } from '../lib/theme';
import { useFrameState } from '../state/frames';
import { useTheme } from '../state/theme-store';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { KpiTiles } from './kpi-tiles';
import { RangePicker } from './range-picker';
import { TimeChart } from './time-chart';

/** KPIs and the rate and residency charts over a chosen time range. */
export function OverviewView() {
  const { frame } = useFrameState();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const [rangeSec, setRangeSec] = useState<number | null>(300);
  const [paused, setPaused] = useState(false);
  const [data, setData] = useState<{ range: number | null; series: Series } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const series = await bridge().getSeries({ rangeSec, maxPoints: 600 });
      setData({ range: rangeSec, series });
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [rangeSec]);
  useThrottledRefresh(load, 500, frame?.n, !paused);

  const series = data && data.range === rangeSec ? data.series : null;
  const charts = useMemo(() => {
    if (!series) return null;
    const markers = visibleMarkers(series);
    return {
      rate: { rows: rateRows(series), lines: rateLines(series) },
      resident: { rows: residentRows(series), lines: residentLines(series) },
      markers,
    };
  }, [series]);

  return (
    <div className="overview">
      <KpiTiles kpis={frame?.kpis ?? null} />
      <div className="chart-toolbar">
        <RangePicker value={rangeSec} onChange={setRangeSec} />
        <button
          type="button"
          className="btn"
          aria-pressed={paused}
          data-testid="pause-charts"
          onClick={() => setPaused((p) => !p)}
        >
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
        {paused && <span className="muted">Charts paused; the numbers above stay live.</span>}
        {series && (
          <span className="muted chart-meta">
            {series.points.length} points, {series.binSec}s each
          </span>
        )}
        {error && <span className="error">Could not load the series: {error}</span>}
      </div>
      <TimeChart
        title="Store vs evict rate (blocks/s)"
        testId="chart-rates"
        rows={charts?.rate.rows ?? []}
        lines={charts?.rate.lines ?? []}
        markers={charts?.markers ?? []}
        colors={colors}
        unit="rate"
        exportable
      />
      <TimeChart
        title="Resident blocks by medium"
        testId="chart-resident"
        rows={charts?.resident.rows ?? []}
        lines={charts?.resident.lines ?? []}
        markers={charts?.markers ?? []}
        colors={colors}
        unit="count"
      />
    </div>
  );
}
