import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AnalysisReport } from '../../shared/analysis-report';
import { formatClock, formatInt, formatPercent } from '../lib/format';
import { roundAxis, SHORT_CHART_TICKS, timeTicks } from '../lib/axis-ticks';
import type { ChartColors } from '../lib/theme';
import { thrashAtWindow, thrashSeriesAtWindow, thrashWindows } from '../lib/thrash-window';

interface Props {
  report: AnalysisReport;
  colors: ChartColors;
  /** The window picked (the Insights' tile follows it too). */
  windowS: number;
  onWindowChange(windowS: number): void;
}

/**
 * The bins' axis on round times (timeTicks) where bins start on them; else recharts' own labels
 * (a bin every few seconds from an odd start has none on a round time).
 */
function binTicks(times: number[]): { ticks?: number[]; interval?: 0 } {
  const starts = new Set(times);
  const ticks = timeTicks(times[0] ?? 0, times[times.length - 1] ?? 0).filter((t) => starts.has(t));
  return ticks.length >= 2 ? { ticks, interval: 0 } : {};
}

/** Re-stores over time, and how many of them count as thrash for a window the user picks. */
export function ThrashPanel({ report, colors, windowS, onWindowChange }: Props) {
  const thrash = thrashAtWindow(report, windowS);
  const s = report.restoreSeries;
  // The bars follow the window picked, as the count above them does.
  const thrashBins = thrashSeriesAtWindow(s, report.thrashWindowS, windowS);
  const rows =
    s.startS === null
      ? []
      : s.restores.map((n, i) => ({
          t: (s.startS as number) + i * s.binS,
          restores: n - (thrashBins[i] ?? 0),
          thrash: thrashBins[i] ?? 0,
        }));
  const tick = { fill: colors.text, fontSize: 11 };
  const restores = report.totals.restores;
  return (
    <section className="panel insight-panel" aria-label="Thrash" data-testid="thrash-panel">
      <h3>Thrash</h3>
      <div className="insight-row">
        <label className="field-inline">
          <span>Window</span>
          <select
            value={windowS}
            data-testid="thrash-window"
            onChange={(e) => onWindowChange(Number(e.target.value))}
          >
            {thrashWindows(report).map((w) => (
              <option key={w} value={w}>
                {w} s
              </option>
            ))}
          </select>
        </label>
        <span data-testid="thrash-at-window" data-value={thrash}>
          {formatInt(thrash)} of {formatInt(restores)} re-stores came back within {windowS} s of
          their eviction ({formatPercent(thrash, restores)})
        </span>
      </div>
      {rows.length === 0 ? (
        <p className="muted">No re-store yet.</p>
      ) : (
        <>
          <ResponsiveContainer width="100%" height={180}>
            <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
              <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
              <XAxis
                dataKey="t"
                tick={tick}
                tickFormatter={(t: number) => formatClock(t)}
                {...binTicks(rows.map((r) => r.t))}
              />
              <YAxis
                tick={tick}
                width={56}
                allowDecimals={false}
                {...roundAxis(
                  s.restores.reduce((a, b) => Math.max(a, b), 0),
                  true,
                  SHORT_CHART_TICKS,
                )}
              />
              <Tooltip
                contentStyle={{ background: colors.tooltipBg, color: colors.text }}
                labelFormatter={(t) => `${formatClock(Number(t))}, ${s.binS} s bin`}
              />
              <Bar
                dataKey="thrash"
                name={`thrash (within ${windowS} s)`}
                stackId="r"
                fill={colors.lines[1]}
                isAnimationActive={false}
              />
              <Bar
                dataKey="restores"
                name="other re-stores"
                stackId="r"
                fill={colors.lines[0]}
                isAnimationActive={false}
              />
            </BarChart>
          </ResponsiveContainer>
          <p
            className="muted small"
            data-testid="thrash-caption"
            data-drawn-thrash={rows.reduce((n, r) => n + r.thrash, 0)}
          >
            Bars: re-stores per {s.binS} s of event time; red ones came back within {windowS} s of
            their eviction.
          </p>
        </>
      )}
    </section>
  );
}
