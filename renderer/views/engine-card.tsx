import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EngineReconciliation } from '../../shared/api-types';
import { hitRateNote, pct, residencyVerdict } from '../lib/engine-verdict';
import { formatClock, formatInt } from '../lib/format';
import { sourceLabel } from '../lib/source-names';
import { chartColors, type ChartColors } from '../lib/theme';
import { useSourceNames } from '../state/use-source-names';
import { useTheme } from '../state/theme-store';

const int = (v: number | null): string => (v === null ? '—' : formatInt(v));
const signed = (v: number): string => (v > 0 ? `+${formatInt(v)}` : formatInt(v));

/** One source's engine metrics beside its events, or why they cannot be read. */
export function EngineCard({ r }: { r: EngineReconciliation }) {
  const names = useSourceNames();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const name = sourceLabel(names, r.source);
  const verdict = residencyVerdict(r);
  const diff = r.engineUsedBlocks === null ? null : r.eventResidentBlocks - r.engineUsedBlocks;
  const hasFigures = r.readAt !== null;
  return (
    <article
      className="engine-card"
      aria-label={`Engine metrics of ${name}`}
      data-testid="engine-card"
    >
      <header className="engine-card-head">
        <strong className="ellipsis" title={name}>
          {name}
        </strong>
        <span className="muted ellipsis" title={r.url}>
          {r.url}
        </span>
        <span className={`badge ${r.ok ? 'badge-ok' : 'badge-bad'}`} data-testid="engine-state">
          {r.ok ? 'read' : hasFigures ? 'stale' : 'not read'}
        </span>
      </header>
      {r.message && (
        <div className="error engine-error" role="alert" data-testid="engine-error">
          {r.message}
          {hasFigures && ` (figures below are from ${formatClock((r.readAt ?? 0) / 1000)})`}
        </div>
      )}
      {hasFigures && (
        <>
          <table className="engine-table">
            <thead>
              <tr>
                <th scope="col" />
                <th scope="col">From the events</th>
                <th scope="col">From the engine</th>
                <th scope="col">Difference</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Resident GPU blocks</th>
                <td data-testid="engine-event-resident" data-value={r.eventResidentBlocks}>
                  {formatInt(r.eventResidentBlocks)}
                </td>
                <td>
                  <span data-testid="engine-used" data-value={r.engineUsedBlocks ?? ''}>
                    {int(r.engineUsedBlocks)}
                  </span>{' '}
                  <span className="muted">
                    in use ({pct(r.usage)} of {int(r.numGpuBlocks)})
                  </span>
                </td>
                <td>
                  <strong data-testid="engine-diff" data-value={diff ?? ''}>
                    {diff === null ? '—' : signed(diff)}
                  </strong>
                </td>
              </tr>
              <tr>
                <th scope="row">Prefix-cache hits</th>
                <td>
                  <span data-testid="engine-announced" data-value={r.announcedHitRatio ?? ''}>
                    {pct(r.announcedHitRatio)}
                  </span>{' '}
                  <span className="muted">
                    announced ({formatInt(r.announcedHits)} of{' '}
                    {formatInt(r.announcedHits + r.newStores)} blocks)
                  </span>
                </td>
                <td colSpan={2}>
                  <span data-testid="engine-hit-rate" data-value={r.hitRate ?? ''}>
                    {pct(r.hitRate)}
                  </span>{' '}
                  <span className="muted">overall,</span>{' '}
                  <span data-testid="engine-window-hit-rate" data-value={r.windowHitRate ?? ''}>
                    {r.windowHitRate === null ? (
                      <span className="muted">no queries read in the last {r.windowSec} s</span>
                    ) : (
                      <>
                        {pct(r.windowHitRate)}{' '}
                        <span className="muted">last {r.windowSec} s (tokens)</span>
                      </>
                    )}
                  </span>
                </td>
              </tr>
              <tr>
                <th scope="row">Preemptions</th>
                <td className="muted">not in the events</td>
                <td colSpan={2}>
                  <div className="engine-preempt">
                    <span data-testid="engine-preemptions" data-value={r.preemptions ?? ''}>
                      {int(r.preemptions)}
                    </span>
                    {r.preemptionSteps.length > 0 ? (
                      <>
                        <PreemptionChart steps={r.preemptionSteps} colors={colors} />
                        <span className="muted">per read</span>
                      </>
                    ) : (
                      <span className="muted">since the engine started</span>
                    )}
                  </div>
                </td>
              </tr>
              <tr>
                <th scope="row">What-if capacity</th>
                <td
                  colSpan={3}
                  data-testid="engine-capacity"
                  data-value={r.whatIfCapacity?.blocks ?? ''}
                >
                  {r.whatIfCapacity
                    ? `${formatInt(r.whatIfCapacity.blocks)} blocks (${r.whatIfCapacity.basis === 'engine' ? "the engine's num_gpu_blocks" : "peak resident: the engine's num_gpu_blocks is not known"})`
                    : '— (no GPU blocks stored yet)'}
                </td>
              </tr>
            </tbody>
          </table>
          <p
            className={`engine-verdict engine-verdict-${verdict.kind}`}
            data-testid="engine-verdict"
            data-kind={verdict.kind}
          >
            {verdict.text}
          </p>
          <p className="engine-verdict muted">{hitRateNote(r)}</p>
        </>
      )}
    </article>
  );
}

/** Preemptions at each read of the engine's metrics, as small bars over time. */
function PreemptionChart({
  steps,
  colors,
}: {
  steps: { t: number; n: number }[];
  colors: ChartColors;
}) {
  return (
    <div className="engine-spark" data-testid="engine-preemption-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={steps} margin={{ top: 2, right: 2, bottom: 0, left: 0 }}>
          <XAxis dataKey="t" hide />
          <YAxis hide allowDecimals={false} domain={[0, (max: number) => Math.max(1, max)]} />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(t) => formatClock(Number(t))}
            formatter={(v) => [formatInt(Number(v)), 'preemptions']}
            contentStyle={{
              background: colors.tooltipBg,
              borderColor: colors.grid,
              color: colors.text,
              fontSize: 12,
            }}
          />
          <Bar dataKey="n" fill={colors.lines[1]} isAnimationActive={false} maxBarSize={6} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
