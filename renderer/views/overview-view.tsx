import { useMemo } from 'react';
import type { Series } from '../../shared/api-types';
import {
  chartEmptyText,
  rateLines,
  rateRows,
  residentLines,
  residentRows,
  residentSourceLines,
  residentSourceRows,
  visibleMarkers,
} from '../lib/chart-rows';
import type { TimeWindow } from '../lib/chart-zoom';
import { formatClock, formatDateTime, plural } from '../lib/format';
import { chartOf } from '../lib/png-export';
import { sourceLabels } from '../lib/source-names';
import { chartColors } from '../lib/theme';
import { useFrameState } from '../state/frames';
import type { OverviewState, OverviewUpdate } from '../state/overview-state';
import { useOverviewSeries } from '../state/use-overview-series';
import { useSourceNames } from '../state/use-source-names';
import { useTheme } from '../state/theme-store';
import { StatusStrip } from '../components/status-strip';
import { exportPng, type Notify } from '../components/file-actions';
import { EnginePanel } from './engine-panel';
import { KpiTiles } from './kpi-tiles';
import { RangePicker } from './range-picker';
import { TimeChart } from './time-chart';
import { TimeScrubber } from './time-scrubber';

const NONE: ReadonlySet<string> = new Set();

interface Props {
  /** Kept by the App, so a change of tab does not reset it. */
  state: OverviewState;
  onChange: OverviewUpdate;
  epoch: number;
  notify: Notify;
  /** Opens the event log at an event time: the events before `beforeTs`. */
  onOpenEvents(beforeTs: number): void;
}

/** The time span a series covers: its first bin's start to its last bin's end. */
function seriesSpan(s: Series | null): TimeWindow | null {
  const first = s?.points[0];
  const last = s?.points.at(-1);
  if (!s || !first || !last) return null;
  return { from: first.t, to: last.t + s.binSec };
}

/** KPIs, the rate and residency charts over a chosen range or zoomed window, the engine's metrics. */
export function OverviewView({ state, onChange, epoch, notify, onOpenEvents }: Props) {
  const { frame } = useFrameState();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const names = useSourceNames();
  const { paused, zoom, residentBy } = state;
  const { series, outline, error } = useOverviewSeries(state, onChange, epoch);

  const charts = useMemo(() => {
    if (!series) return null;
    return {
      rate: { rows: rateRows(series), lines: rateLines(series, names) },
      resident:
        residentBy === 'source'
          ? { rows: residentSourceRows(series), lines: residentSourceLines(series, names) }
          : { rows: residentRows(series), lines: residentLines(series) },
      markers: visibleMarkers(series),
    };
  }, [series, names, residentBy]);
  const outlineRows = useMemo(() => (outline ? rateRows(outline) : []), [outline]);
  const emptyText = chartEmptyText(
    frame?.kpis.events ?? null,
    series != null,
    frame?.view.kind === 'session',
    frame?.sources.length,
  );
  const shownSpan = seriesSpan(series);
  const outlineSpan = seriesSpan(outline);
  const scrubbed = zoom ?? shownSpan;
  const hiddenOf = (chart: string) => state.hidden[chart] ?? NONE;
  const setHidden = (chart: string) => (next: ReadonlySet<string>) =>
    onChange((s) => ({ ...s, hidden: { ...s.hidden, [chart]: next } }));
  const setZoom = (w: TimeWindow | null) => onChange((s) => ({ ...s, zoom: w }));
  const binSec = series?.binSec ?? 1;
  const rangeText = shownSpan
    ? `${formatDateTime(shownSpan.from)} – ${formatDateTime(shownSpan.to)}, ${plural(binSec, 'second')} per point`
    : '';
  const common = {
    markers: charts?.markers ?? [],
    colors,
    emptyText,
    names,
    binSec,
    rangeText,
    sourcesText: series ? sourceLabels(names, series.sources) : '',
    onZoom: setZoom,
    onPick: (t: number) => onOpenEvents(t + binSec),
    onExport: (host: HTMLElement) => void exportPng(theme, notify, chartOf(host)),
  };

  return (
    <div className="overview">
      <KpiTiles kpis={frame?.kpis ?? null} />
      {frame?.view.kind === 'live' && <StatusStrip sources={frame.sources} />}
      <div className="chart-toolbar">
        <RangePicker
          value={zoom ? undefined : state.rangeSec}
          onChange={(sec) => onChange((s) => ({ ...s, rangeSec: sec, zoom: null }))}
        />
        <button
          type="button"
          className="btn"
          data-testid="zoom-reset"
          disabled={!zoom}
          title="Back to the chosen range, following the newest events"
          onClick={() => setZoom(null)}
        >
          ⟲ Reset zoom
        </button>
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
        {zoom && (
          <span className="muted" data-testid="zoom-window">
            Zoomed: {formatClock(zoom.from)} – {formatClock(zoom.to)}
          </span>
        )}
        {series && shownSpan && (
          <span
            className="muted chart-meta"
            title="The second still filling is not drawn: each point is a whole one"
          >
            {plural(series.points.length, 'point')}, {series.binSec}s each, up to{' '}
            {formatClock(shownSpan.to)}
          </span>
        )}
        {error && <span className="error">Could not load the series: {error}</span>}
      </div>
      <TimeChart
        {...common}
        title="Store vs evict rate (blocks/s)"
        testId="chart-rates"
        rows={charts?.rate.rows ?? []}
        lines={charts?.rate.lines ?? []}
        unit="rate"
        hidden={hiddenOf('chart-rates')}
        onHiddenChange={setHidden('chart-rates')}
      />
      <TimeChart
        {...common}
        title={residentBy === 'source' ? 'Resident blocks by source' : 'Resident blocks by medium'}
        testId="chart-resident"
        rows={charts?.resident.rows ?? []}
        lines={charts?.resident.lines ?? []}
        unit="count"
        hidden={hiddenOf(`chart-resident-${residentBy}`)}
        onHiddenChange={setHidden(`chart-resident-${residentBy}`)}
        headExtra={
          <div className="segmented" role="group" aria-label="Resident blocks split by">
            {(['medium', 'source'] as const).map((by) => (
              <button
                key={by}
                type="button"
                className="seg"
                aria-pressed={residentBy === by}
                data-testid={`resident-by-${by}`}
                onClick={() => onChange((s) => ({ ...s, residentBy: by }))}
              >
                by {by}
              </button>
            ))}
          </div>
        }
      />
      {/* Mounted while a zoomed window's series loads: each move of a drag zooms anew, and an
          unmounted scrubber would drop the drag after its first move. */}
      {outlineSpan && scrubbed && (
        <TimeScrubber
          rows={outlineRows}
          span={outlineSpan}
          value={scrubbed}
          colors={colors}
          onChange={setZoom}
        />
      )}
      {frame?.view.kind === 'live' && <EnginePanel />}
    </div>
  );
}
