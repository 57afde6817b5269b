import {
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { WhatIfReport } from '../../shared/analysis-report';
import { formatInt, formatPercent } from '../lib/format';
import { maxOf, roundAxis, SHORT_CHART_TICKS } from '../lib/axis-ticks';
import type { ChartColors } from '../lib/theme';

interface Props {
  w: WhatIfReport;
  label: string;
  colors: ChartColors;
  /** Batches the stream lost: the removals in them never came, so the peak may be too high. */
  lostBatches: number;
}

/** What-if capacity of one (source, medium): the five-point table and the curve over k. */
export function WhatIfPanel({ w, label, colors, lostBatches }: Props) {
  const lost =
    lostBatches > 0
      ? `; batches were lost, and blocks evicted in them still count as resident, so it may be past the real capacity`
      : '';
  const basis =
    w.capacityBasis === 'engine'
      ? `the engine's own capacity, ${formatInt(w.capacityBlocks)} blocks`
      : `the peak resident count, ${formatInt(w.capacityBlocks)} blocks (the engine's real capacity is not known${lost})`;
  const tick = { fill: colors.text, fontSize: 11 };
  return (
    <section
      className="panel insight-panel"
      aria-label={`What-if capacity of ${label} ${w.medium}`}
      data-testid="what-if"
    >
      <h3>
        {label} · {w.medium}
      </h3>
      <p className="muted small">
        An LRU ghost-list estimate{w.estimate ? ' (sampled past its exact bound)' : ''}: with k more
        blocks, every re-store whose ghost distance was below k would have been a hit. Based on{' '}
        {basis}.
      </p>
      <table className="data-table">
        <thead>
          <tr>
            <th>Extra capacity</th>
            <th className="num">Blocks</th>
            <th className="num">Extra hits</th>
            <th className="num">Of new stores</th>
          </tr>
        </thead>
        <tbody>
          {w.points.map((p) => (
            <tr key={p.extraBlocks + ':' + String(p.extraFraction)}>
              <td>+{Math.round((p.extraFraction ?? 0) * 100)}%</td>
              <td className="num">{formatInt(p.extraBlocks)}</td>
              <td className="num" data-value={p.extraHits}>
                {formatInt(p.extraHits)}
              </td>
              <td className="num">{formatPercent(p.extraHits, w.newStores)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {w.curve.length > 1 && (
        <div className="insight-chart" aria-label="Extra hits against extra blocks">
          <ResponsiveContainer width="100%" height={180}>
            <LineChart data={w.curve} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
              <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
              <XAxis
                dataKey="extraBlocks"
                type="number"
                tick={tick}
                {...roundAxis(maxOf(w.curve, ['extraBlocks']), true)}
              />
              <YAxis
                tick={tick}
                width={56}
                allowDecimals={false}
                {...roundAxis(maxOf(w.curve, ['extraHits']), true, SHORT_CHART_TICKS)}
              />
              <Tooltip
                contentStyle={{ background: colors.tooltipBg, color: colors.text }}
                formatter={(v) => [
                  `${formatInt(Number(v))} (${formatPercent(Number(v), w.newStores)} of new stores)`,
                  'extra hits',
                ]}
                labelFormatter={(k) =>
                  `+${formatInt(Number(k))} blocks (${formatPercent(Number(k), w.capacityBlocks)} of capacity)`
                }
              />
              <Line
                dataKey="extraHits"
                stroke={colors.lines[0]}
                dot={false}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}
