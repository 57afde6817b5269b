import { useCallback, useMemo, useState } from 'react';
import type { Series } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import {
  chartEmptyText,
  rateLines,
  rateRows,
  residentLines,
  residentRows,
  visibleMarkers,
} from '../lib/chart-rows';
import { plural } from '../lib/format';
import { chartColors } from '../lib/theme';
import { useFrameState } from '../state/frames';
import { useSourceNames } from '../state/use-source-names';
import { useTheme } from '../state/theme-store';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { StatusStrip } from '../components/status-strip';
import { KpiTiles } from './kpi-tiles';
import { RangePicker } from './range-picker';
import { TimeChart } from './time-chart';

/** KPIs and the rate and residency charts over a chosen time range. */
export function OverviewView() {
  const { frame } = useFrameState();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const names = useSourceNames();
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
      rate: { rows: rateRows(series), lines: rateLines(series, names) },
      resident: { rows: residentRows(series), lines: residentLines(series) },
      markers,
    };
  }, [series, names]);
  const emptyText = chartEmptyText(
    frame?.kpis.events ?? null,
    series != null,
    frame?.view.kind === 'session',
  );

  return (
    <div className="overview">
      <KpiTiles kpis={frame?.kpis ?? null} />
      {frame?.view.kind === 'live' && <StatusStrip sources={frame.sources} />}
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
        {series && series.points.length > 0 && (
          <span className="muted chart-meta">
            {plural(series.points.length, 'point')}, {series.binSec}s each
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
        emptyText={emptyText}
        names={names}
      />
      <TimeChart
        title="Resident blocks by medium"
        testId="chart-resident"
        rows={charts?.resident.rows ?? []}
        lines={charts?.resident.lines ?? []}
        markers={charts?.markers ?? []}
        colors={colors}
        unit="count"
        emptyText={emptyText}
        names={names}
      />
    </div>
  );
}
