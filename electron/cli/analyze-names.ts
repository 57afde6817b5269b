// `kvscope analyze` names sources as the file names them (its header and source lines), as the
// screens do: a name two sources share keeps the id beside it, a source without a name its id.

import type { AnalysisReport } from '../../shared/analysis-report';
import { labelsById } from '../../shared/source-labels';
import type { SessionSource } from '../session/format';

/** Source id → the label the report shows: its name, `name (id)` where names clash, else the id. */
export function sourceLabels(
  ids: readonly string[],
  sources: readonly SessionSource[],
): Map<string, string> {
  const names = new Map(sources.map((s) => [s.id, s.name.trim()]));
  return labelsById(ids, (id) => names.get(id) ?? id);
}

/** The report with every source named by its label (an id not in `labels` stays as it is). */
export function namedReport(
  r: AnalysisReport,
  labels: ReadonlyMap<string, string>,
): AnalysisReport {
  const label = (id: string): string => labels.get(id) ?? id;
  return {
    ...r,
    sources: r.sources.map((s) => ({ ...s, source: label(s.source) })),
    whatIf: r.whatIf.map((w) => ({ ...w, source: label(w.source) })),
    crossSource: {
      ...r.crossSource,
      overlap: r.crossSource.overlap.map((c) => ({
        ...c,
        sourceA: label(c.sourceA),
        sourceB: label(c.sourceB),
      })),
    },
  };
}
