import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LifetimeReport } from '../../shared/analysis-report';
import { formatDuration, formatInt } from '../lib/format';
import { maxOf, roundAxis, SHORT_CHART_TICKS } from '../lib/axis-ticks';
import type { ChartColors } from '../lib/theme';

interface Props {
  lifetimes: readonly LifetimeReport[];
  /** Removals before their store's ts (a clock step): no lifetime was taken for them. */
  backwardRemovals: number;
  colors: ChartColors;
}

/** A bucket bound said short: 30 s, 2 m, 1 h. */
function shortSpan(sec: number): string {
  if (sec < 60) return `${sec} s`;
  if (sec < 3600) return `${sec / 60} m`;
  return `${sec / 3600} h`;
}

const bucketLabel = (upperS: number | null, lowerS: number): string =>
  upperS === null ? `≥ ${shortSpan(lowerS)}` : `< ${shortSpan(upperS)}`;

/** How long blocks stay resident, per medium: p50 / p90 / p99 and the histogram. */
export function LifetimePanel({ lifetimes, backwardRemovals, colors }: Props) {
  const tick = { fill: colors.text, fontSize: 11 };
  return (
    <section className="panel insight-panel" aria-label="Lifetimes" data-testid="lifetime-panel">
      <h3>Lifetimes</h3>
      {lifetimes.length === 0 && <p className="muted">No block has been removed yet.</p>}
      {backwardRemovals > 0 && (
        <p className="muted" data-testid="backward-removals">
          {backwardRemovals === 1
            ? '1 removal came before its store’s time (the clock stepped back): no lifetime was taken for it.'
            : `${formatInt(backwardRemovals)} removals came before their store’s time (the clock stepped back): no lifetime was taken for them.`}
        </p>
      )}
      <div className="insight-grid">
        {lifetimes.map((l) => {
          let lower = 0;
          const rows = l.histogram.map((b) => {
            const row = { bucket: bucketLabel(b.upperS, lower), count: b.count };
            if (b.upperS !== null) lower = b.upperS;
            return row;
          });
          return (
            <div key={l.medium} className="insight-cell" data-testid={`lifetime-${l.medium}`}>
              <h4>
                {l.medium}: {formatInt(l.count)} lifetimes{l.estimate ? ' (sketched)' : ''}
              </h4>
              <p className="mono small">
                p50 {formatDuration(l.p50S)} · p90 {formatDuration(l.p90S)} · p99{' '}
                {formatDuration(l.p99S)}
              </p>
              <ResponsiveContainer width="100%" height={160}>
                <BarChart data={rows} margin={{ top: 4, right: 8, bottom: 4, left: 8 }}>
                  <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
                  <XAxis
                    dataKey="bucket"
                    tick={tick}
                    interval={0}
                    angle={-30}
                    height={44}
                    textAnchor="end"
                  />
                  <YAxis
                    tick={tick}
                    width={48}
                    allowDecimals={false}
                    {...roundAxis(maxOf(rows, ['count']), true, SHORT_CHART_TICKS)}
                  />
                  <Tooltip contentStyle={{ background: colors.tooltipBg, color: colors.text }} />
                  <Bar dataKey="count" fill={colors.lines[2]} isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>
          );
        })}
      </div>
    </section>
  );
}
