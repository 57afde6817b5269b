import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { bridge, errorText } from '../bridge/bridge';
import {
  chartEmptyText,
  rateLines,
  rateRows,
  residentLines,
  residentRows,
  visibleMarkers,
} from '../lib/chart-rows';
import { formatClock, plural } from '../lib/format';
import { chartColors } from '../lib/theme';
import { useFrameState } from '../state/frames';
import type { OverviewState, OverviewUpdate } from '../state/overview-state';
import { useSourceNames } from '../state/use-source-names';
import { useTheme } from '../state/theme-store';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { StatusStrip } from '../components/status-strip';
import { KpiTiles } from './kpi-tiles';
import { RangePicker } from './range-picker';
import { TimeChart } from './time-chart';

const NONE: ReadonlySet<string> = new Set();

interface Props {
  /** Kept by the App, so a change of tab does not reset it. */
  state: OverviewState;
  onChange: OverviewUpdate;
  epoch: number;
}

/** KPIs and the rate and residency charts over a chosen time range. */
export function OverviewView({ state, onChange, epoch }: Props) {
  const { frame } = useFrameState();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const names = useSourceNames();
  const { rangeSec, paused } = state;
  const [error, setError] = useState<string | null>(null);
  const shown = state.shown && state.shown.epoch === epoch ? state.shown : null;
  // Read in load, not a dependency: a drawn series must not start another fetch.
  const shownRef = useRef(shown);
  useEffect(() => {
    shownRef.current = shown;
  }, [shown]);

  const load = useCallback(async () => {
    // Back on a paused Overview: the charts stay as they were drawn.
    if (paused && shownRef.current?.range === rangeSec) return;
    try {
      const series = await bridge().getSeries({ rangeSec, maxPoints: 600 });
      onChange((s) => ({ ...s, shown: { epoch, range: rangeSec, series } }));
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [rangeSec, paused, epoch, onChange]);
  useThrottledRefresh(load, 500, frame?.n, !paused);

  const series = shown && shown.range === rangeSec ? shown.series : null;
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
  const last = series?.points.at(-1);
  const hiddenOf = (chart: string) => state.hidden[chart] ?? NONE;
  const setHidden = (chart: string) => (next: ReadonlySet<string>) =>
    onChange((s) => ({ ...s, hidden: { ...s.hidden, [chart]: next } }));

  return (
    <div className="overview">
      <KpiTiles kpis={frame?.kpis ?? null} />
      {frame?.view.kind === 'live' && <StatusStrip sources={frame.sources} />}
      <div className="chart-toolbar">
        <RangePicker
          value={rangeSec}
          onChange={(sec) => onChange((s) => ({ ...s, rangeSec: sec }))}
        />
        <button
          type="button"
          className="btn"
          aria-pressed={paused}
          data-testid="pause-charts"
          onClick={() => onChange((s) => ({ ...s, paused: !s.paused }))}
        >
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
        {paused && <span className="muted">Charts paused; the numbers above stay live.</span>}
        {series && last && (
          <span
            className="muted chart-meta"
            title="The second still filling is not drawn: each point is a whole one"
          >
            {plural(series.points.length, 'point')}, {series.binSec}s each, up to{' '}
            {formatClock(last.t + series.binSec)}
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
        hidden={hiddenOf('chart-rates')}
        onHiddenChange={setHidden('chart-rates')}
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
        hidden={hiddenOf('chart-resident')}
        onHiddenChange={setHidden('chart-resident')}
      />
    </div>
  );
}
