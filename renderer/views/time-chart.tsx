import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Marker } from '../../shared/api-types';
import type { ChartRow, LineDef } from '../lib/chart-rows';
import { drawOrder, pruneHidden, toggleHidden } from '../lib/chart-rows';
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
  exportable?: boolean;
  testId: string;
  /** Said in place of the chart while there are no rows. */
  emptyText: string;
  names: SourceNames;
  /** Hidden series keys: kept by the caller, so they outlive this component. */
  hidden: ReadonlySet<string>;
  onHiddenChange(next: ReadonlySet<string>): void;
}

const DASH = { solid: undefined, dashed: '6 3', dotted: '2 3' } as const;

const MARKER_LABEL = { clear: 'cache cleared', gap: 'gap', reset: 'publisher restart' } as const;

/** A time-series line chart with a toggling legend and clear/gap markers. */
export function TimeChart({
  title,
  rows,
  lines,
  markers,
  colors,
  unit,
  exportable,
  testId,
  emptyText,
  names,
  hidden,
  onHiddenChange,
}: Props) {
  const visibleHidden = pruneHidden(hidden, lines);
  const fmt = unit === 'rate' ? formatRate : formatInt;
  const axisTick = { fill: colors.text, fontSize: 11, fontFamily: 'system-ui, sans-serif' };
  const labels = new Map(lines.map((l) => [l.key, l.label]));
  const legendOrder = new Map(lines.map((l, i) => [l.key, i]));
  const last = rows[rows.length - 1];
  return (
    <section
      className="chart-card"
      aria-label={title}
      data-testid={testId}
      data-last-point={last ? JSON.stringify(last) : undefined}
    >
      <div className="chart-head">
        <h2>{title}</h2>
        <SeriesLegend
          lines={lines}
          hidden={visibleHidden}
          colors={colors}
          onToggle={(k) => onHiddenChange(toggleHidden(visibleHidden, k))}
        />
        {markers.length > 0 && <MarkerNote markers={markers} colors={colors} names={names} />}
      </div>
      <div className="chart-body" {...(exportable ? { 'data-export-chart': title } : {})}>
        {rows.length === 0 ? (
          <div className="chart-empty muted" data-testid={`${testId}-empty`}>
            {emptyText}
          </div>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid stroke={colors.grid} strokeDasharray="2 4" />
              <XAxis
                dataKey="t"
                type="number"
                scale="time"
                domain={['dataMin', 'dataMax']}
                tickFormatter={(t: number) => formatClock(t)}
                tick={axisTick}
                stroke={colors.axis}
                minTickGap={40}
              />
              <YAxis
                tick={axisTick}
                stroke={colors.axis}
                width={56}
                tickFormatter={(v: number) => fmt(v)}
                allowDecimals={unit === 'rate'}
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
              />
              {markers.map((m, i) => (
                <ReferenceLine
                  key={`${m.kind}-${m.t}-${i}`}
                  x={m.t}
                  stroke={colors.markers[m.kind]}
                  strokeDasharray={m.kind === 'clear' ? undefined : '4 3'}
                  ifOverflow="discard"
                />
              ))}
              {drawOrder(lines)
                .filter((l) => !visibleHidden.has(l.key))
                .map((l) => (
                  <Line
                    key={l.key}
                    dataKey={l.key}
                    name={l.key}
                    type="monotone"
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
  colors,
  names,
}: {
  markers: Marker[];
  colors: ChartColors;
  names: SourceNames;
}) {
  const kinds = (['clear', 'gap', 'reset'] as const).filter((k) =>
    markers.some((m) => m.kind === k),
  );
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
          </span>
        );
      })}
    </div>
  );
}
