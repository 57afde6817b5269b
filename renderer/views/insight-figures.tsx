import type { AnalysisReport } from '../../shared/analysis-report';
import { formatDuration, formatInt } from '../lib/format';
import { thrashAtWindow } from '../lib/thrash-window';

interface Figure {
  id: string;
  label: string;
  /** The exact number, in data-value; the text may format it. */
  value: number | null;
  text: string;
  title: string;
}

function figures(r: AnalysisReport, thrashWindowS: number): Figure[] {
  const int = (id: string, label: string, value: number, title: string): Figure => ({
    id,
    label,
    value,
    text: formatInt(value),
    title,
  });
  const p50 = (medium: string): Figure => {
    const l = r.lifetimes.find((x) => x.medium === medium);
    const v = l?.p50S ?? null;
    return {
      id: `lifetime-p50-${medium.toLowerCase()}`,
      label: `${medium} lifetime p50`,
      value: v,
      text: v === null ? '—' : formatDuration(v),
      title: `Median time a ${medium} block stayed resident (store to removal)`,
    };
  };
  return [
    int('new-stores', 'New stores', r.totals.newStores, 'Stores of blocks not resident there'),
    int('restores', 'Re-stores', r.totals.restores, 'New stores of blocks evicted earlier'),
    int(
      'thrash-restores',
      `Thrash (${thrashWindowS} s)`,
      thrashAtWindow(r, thrashWindowS),
      `Re-stores within ${thrashWindowS} s of their eviction (the Thrash panel's window)`,
    ),
    int('announced-hits', 'Announced hits', r.totals.announcedHits, 'Stores of resident blocks'),
    int(
      'duplicate-stores',
      'Duplicate stores',
      r.crossSource.duplicateStores,
      'New stores of blocks another source held at that moment',
    ),
    int(
      'routing-regret',
      'Routing regret',
      r.crossSource.routingRegretBlocks,
      'Blocks stored that one other source already held as a leading run (a better route)',
    ),
    int('shared-now', 'Shared now', r.crossSource.sharedBlocksNow, 'Blocks held by 2+ sources'),
    p50('GPU'),
    p50('CPU'),
  ];
}

interface Props {
  report: AnalysisReport;
  /** The thrash window the Thrash panel shows: the tile follows it. */
  thrashWindowS: number;
}

/** The headline figures of the analysis; each value element carries its exact number. */
export function InsightFigures({ report, thrashWindowS }: Props) {
  return (
    <div className="kpis insight-kpis" aria-label="Insight figures">
      {figures(report, thrashWindowS).map((f) => (
        <div key={f.id} className="kpi" title={f.title}>
          <div className="kpi-label">{f.label}</div>
          <div
            className="kpi-value"
            data-testid={`insight-${f.id}`}
            data-value={f.value === null ? '' : String(f.value)}
          >
            {f.text}
          </div>
        </div>
      ))}
    </div>
  );
}
