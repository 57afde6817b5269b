import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Marker } from '../../shared/api-types';
import type { ChartRow, LineDef } from '../lib/chart-rows';
import { drawnMarkers, drawOrder, pruneHidden, toggleHidden } from '../lib/chart-rows';
import { maxOf, roundAxis, timeTicks } from '../lib/axis-ticks';
import { dragWindow, type TimeWindow } from '../lib/chart-zoom';
import type { ChartExportMeta } from '../lib/png-export';
import { formatClock, formatDateTime, formatInt, formatRate } from '../lib/format';
import { sourceLabel } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';
import { lineColor } from '../lib/theme';
import type { ChartColors } from '../lib/theme';
import { SeriesLegend } from './series-legend';

interface Props {
  title: string;
  rows: ChartRow[];
  lines: LineDef[];
  markers: Marker[];
  colors: ChartColors;
  /** Rates get one decimal; counts are integers. */
  unit: 'rate' | 'count';
  testId: string;
  /** Seconds per point: a drag's end and a clicked point cover their whole bin. */
  binSec: number;
  /** The time range and sources said in words (drawn into an exported PNG). */
  rangeText: string;
  sourcesText: string;
  /** A drag across the plot selects this window. */
  onZoom(w: TimeWindow): void;
  /** A click on the plot (not a drag) picks the point's bin: [t, t + binSec). */
  onPick(t: number): void;
  /** Exports this chart as a PNG (its card element carries what the image needs). */
  onExport(host: HTMLElement): void;
  /** Said in place of the chart while there are no rows. */
  emptyText: string;
  names: SourceNames;
  /** Hidden series keys: kept by the caller, so they outlive this component. */
  hidden: ReadonlySet<string>;
  onHiddenChange(next: ReadonlySet<string>): void;
  /** A control beside the title (the residency chart's split). */
  headExtra?: ReactNode;
}

const DASH = { solid: undefined, dashed: '6 3', dotted: '2 3' } as const;

const MARKER_LABEL = {
  clear: 'cache cleared',
  gap: 'gap',
  reset: 'publisher restart',
  clock: 'batch off its clock',
} as const;
const MARKER_KINDS = ['clear', 'gap', 'reset', 'clock'] as const;

/**
 * The time of the point nearest to clientX over the plot (the grid's box spans it; the x axis runs
 * from the first row to the last). Computed here rather than taken from recharts' activeLabel,
 * which a press that follows the pointer's arrival at once may not carry yet.
 */
function pointAt(
  plot: Element | null | undefined,
  rows: ChartRow[],
  clientX: number,
): number | null {
  const first = rows[0]?.t;
  const last = rows[rows.length - 1]?.t;
  const box = plot?.getBoundingClientRect();
  if (first === undefined || last === undefined || !box || box.width <= 0) return null;
  const f = Math.min(1, Math.max(0, (clientX - box.left) / box.width));
  const t = first + f * (last - first);
  let best = first;
  for (const r of rows) if (Math.abs(r.t - t) < Math.abs(best - t)) best = r.t;
  return best;
}

/** A drag across the plot: where it started and where the pointer is, as point times. */
interface Drag {
  a: number;
  b: number;
}

/**
 * A time-series line chart with a toggling legend and clear/gap markers; drag across it to zoom,
 * click a point to open its events.
 */
export function TimeChart({
  title,
  rows,
  lines,
  markers,
  colors,
  unit,
  testId,
  binSec,
  rangeText,
  sourcesText,
  onZoom,
  onPick,
  onExport,
  emptyText,
  names,
  hidden,
  onHiddenChange,
  headExtra,
}: Props) {
  const [drag, setDrag] = useState<Drag | null>(null);
  // The drag as the window's listeners see it between renders.
  const dragRef = useRef<Drag | null>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const timeAt = (clientX: number) =>
    pointAt(bodyRef.current?.querySelector('.recharts-cartesian-grid'), rows, clientX);

  // A drag is followed on the window, as Grafana's: past the plot's edge it holds at the edge, a
  // release anywhere ends it, Escape drops it.
  useEffect(() => {
    if (!drag) return;
    const move = (e: MouseEvent) => {
      const d = dragRef.current;
      const t = timeAt(e.clientX);
      if (!d || t === null || t === d.b) return;
      dragRef.current = { a: d.a, b: t };
      setDrag(dragRef.current);
    };
    const up = () => {
      const d = dragRef.current;
      dragRef.current = null;
      setDrag(null);
      if (!d) return;
      const w = dragWindow(d.a, d.b, binSec);
      if (w) onZoom(w);
      else onPick(d.b);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      dragRef.current = null;
      setDrag(null);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
    window.addEventListener('keydown', key);
    return () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      window.removeEventListener('keydown', key);
    };
  });
  const visibleHidden = pruneHidden(hidden, lines);
  const fmt = unit === 'rate' ? formatRate : formatInt;
  const axisTick = { fill: colors.text, fontSize: 11, fontFamily: 'system-ui, sans-serif' };
  const labels = new Map(lines.map((l) => [l.key, l.label]));
  const legendOrder = new Map(lines.map((l, i) => [l.key, i]));
  const first = rows[0];
  const last = rows[rows.length - 1];
  const shownLines = lines.filter((l) => !visibleHidden.has(l.key));
  const xTicks = first && last ? timeTicks(first.t, last.t) : [];
  const yAxis = roundAxis(
    maxOf(
      rows,
      shownLines.map((l) => l.key),
    ),
    unit === 'count',
  );
  const drawn = useMemo(() => drawnMarkers(markers), [markers]);
  const meta: ChartExportMeta = {
    range: rangeText,
    sources: sourcesText,
    legend: [
      ...shownLines.map((l) => ({
        label: l.label,
        color: lineColor(colors, l.color, !l.total),
        ...(l.dash ? { dash: l.dash } : {}),
      })),
      // The vertical marker lines, named as the marker note names them (dashed as drawn).
      ...MARKER_KINDS.filter((k) => markers.some((m) => m.kind === k)).map((k) => ({
        label: `${MARKER_LABEL[k]} ×${markers.filter((m) => m.kind === k).length}`,
        color: colors.markers[k],
        ...(k === 'clear' ? {} : { dash: 'dashed' as const }),
      })),
    ],
  };

  return (
    <section
      className="chart-card"
      aria-label={title}
      data-testid={testId}
      data-last-point={last ? JSON.stringify(last) : undefined}
      data-first-t={first?.t}
      data-last-t={last?.t}
    >
      <div className="chart-head">
        <h2>{title}</h2>
        {headExtra}
        <button
          type="button"
          className="btn btn-ghost btn-small chart-png"
          data-testid={`${testId}-png`}
          disabled={rows.length === 0}
          title="Save this chart as a PNG image, with its title, legend, sources and time range"
          onClick={() => bodyRef.current && onExport(bodyRef.current)}
        >
          PNG
        </button>
        <SeriesLegend
          lines={lines}
          hidden={visibleHidden}
          colors={colors}
          onToggle={(k) => onHiddenChange(toggleHidden(visibleHidden, k))}
        />
        {markers.length > 0 && (
          <MarkerNote markers={markers} drawn={drawn} colors={colors} names={names} />
        )}
      </div>
      <div
        className="chart-body"
        ref={bodyRef}
        data-export-chart={title}
        data-export-meta={JSON.stringify(meta)}
        title="Drag across the chart to zoom; click a point to see its events"
      >
        {/* No lines (every source removed): a plot without a y axis says less than the text. */}
        {rows.length === 0 || lines.length === 0 ? (
          <div className="chart-empty muted" data-testid={`${testId}-empty`}>
            {emptyText}
          </div>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart
              data={rows}
              margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
              style={{ cursor: 'crosshair', userSelect: 'none' }}
              onMouseDown={(_st, e) => {
                const t = e.button === 0 ? timeAt(e.clientX) : null;
                if (t === null) return;
                dragRef.current = { a: t, b: t };
                setDrag(dragRef.current);
              }}
            >
              <CartesianGrid stroke={colors.grid} strokeDasharray="2 4" />
              <XAxis
                dataKey="t"
                type="number"
                scale="time"
                domain={['dataMin', 'dataMax']}
                ticks={xTicks}
                tickFormatter={(t: number) => formatClock(t)}
                tick={axisTick}
                stroke={colors.axis}
                minTickGap={40}
              />
              <YAxis
                tick={axisTick}
                stroke={colors.axis}
                width={56}
                allowDecimals={unit === 'rate'}
                // Abbreviated on the axis (1.2M): its width is fixed; the tooltip says every digit.
                {...yAxis}
              />
              <Tooltip
                isAnimationActive={false}
                labelFormatter={(t) => formatDateTime(Number(t))}
                formatter={(v, name) => [fmt(Number(v)), labels.get(String(name)) ?? String(name)]}
                itemSorter={(item) => legendOrder.get(String(item.dataKey)) ?? 0}
                contentStyle={{
                  background: colors.tooltipBg,
                  borderColor: colors.grid,
                  color: colors.text,
                  fontSize: 12,
                }}
                labelStyle={{ color: colors.text }}
                // Over the card below when it is taller than its own (a row per source's series):
                // the next card was drawn over its last rows.
                wrapperStyle={{ zIndex: 10 }}
              />
              {drawn.map(
                (m, i) =>
                  // A gap's lost span: its rates lack what was lost (not an engine gone quiet).
                  m.from !== undefined && (
                    <ReferenceArea
                      key={`lost-${m.t}-${i}`}
                      x1={m.from}
                      x2={m.t}
                      fill={colors.markers.gap}
                      fillOpacity={0.1}
                      ifOverflow="hidden"
                    />
                  ),
              )}
              {drawn.map((m, i) => (
                <ReferenceLine
                  key={`${m.kind}-${m.t}-${i}`}
                  x={m.t}
                  stroke={colors.markers[m.kind]}
                  strokeDasharray={m.kind === 'clear' ? undefined : '4 3'}
                  ifOverflow="discard"
                />
              ))}
              {drag && drag.a !== drag.b && (
                <ReferenceArea
                  x1={Math.min(drag.a, drag.b)}
                  x2={Math.max(drag.a, drag.b) + binSec}
                  fill={colors.axis}
                  fillOpacity={0.18}
                  stroke={colors.axis}
                  strokeOpacity={0.5}
                  ifOverflow="extendDomain"
                />
              )}
              {drawOrder(shownLines).map((l) => (
                <Line
                  key={l.key}
                  dataKey={l.key}
                  name={l.key}
                  // Straight between points, as Grafana draws by default: a curve through them
                  // swooped where a clear dropped the resident count in one second.
                  type="linear"
                  dot={rows.length === 1}
                  isAnimationActive={false}
                  stroke={lineColor(colors, l.color, !l.total)}
                  strokeWidth={l.total ? 2.25 : 1.25}
                  strokeOpacity={l.total ? 1 : 0.85}
                  strokeDasharray={DASH[l.dash ?? 'solid']}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </section>
  );
}

/** A one-line key to the vertical markers, with each marker's detail in the title. */
function MarkerNote({
  markers,
  drawn,
  colors,
  names,
}: {
  markers: Marker[];
  /** The ones drawn as lines (drawnMarkers): fewer when there are too many to draw. */
  drawn: Marker[];
  colors: ChartColors;
  names: SourceNames;
}) {
  const kinds = MARKER_KINDS.filter((k) => markers.some((m) => m.kind === k));
  const drawnOf = (k: Marker['kind']): number => drawn.filter((m) => m.kind === k).length;
  return (
    <div className="marker-note">
      {kinds.map((k) => {
        const ms = markers.filter((m) => m.kind === k);
        const detail = ms
          .slice(-10)
          .map((m) => `${formatDateTime(m.t)} ${sourceLabel(names, m.source)}: ${m.detail}`)
          .join('\n');
        return (
          <span key={k} title={detail} data-testid={`markers-${k}`}>
            <span className="marker-swatch" style={{ background: colors.markers[k] }} />
            {MARKER_LABEL[k]} ×{ms.length}
            {drawnOf(k) < ms.length && ` (newest ${drawnOf(k)} drawn)`}
            {k === 'gap' && ms.some((m) => m.from !== undefined) && ', lost spans shaded'}
          </span>
        );
      })}
    </div>
  );
}
