import { useCallback, useMemo, useState } from 'react';
import {
  listsCut,
  MAX_ANALYSED_SOURCES,
  type AnalysisReport,
  type KvCacheGroupReport,
  type WhatIfReport,
} from '../../shared/analysis-report';
import { bridge, errorText } from '../bridge/bridge';
import { insightsVerdict, restoresSettled } from '../lib/insights-verdict';
import { formatInt, formatPercent, nameList } from '../lib/format';
import { sourceLabel } from '../lib/source-names';
import { labelsById } from '../../shared/source-labels';
import { chartColors } from '../lib/theme';
import { storedThrashPick, storeThrashPick, thrashWindows } from '../lib/thrash-window';
import { useFrameState } from '../state/frames';
import { useSourceNames } from '../state/use-source-names';
import { useTheme } from '../state/theme-store';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { HotPrefixesPanel } from './hot-prefixes-panel';
import { InsightFigures } from './insight-figures';
import { LifetimePanel } from './lifetime-panel';
import { RouterPanel } from './router-panel';
import { ThrashPanel } from './thrash-panel';
import { WhatIfPanel } from './what-if-panel';

/** What-if rows shown at most (the busiest first); the report holds them all. */
const MAX_WHAT_IF = 8;

interface Props {
  onOpenChain(hash: string): void;
}

/** A group as the note names it: "1 sliding_window 128". */
const groupText = (g: KvCacheGroupReport): string =>
  [String(g.group), g.kind ?? '', g.slidingWindow === null ? '' : formatInt(g.slidingWindow)]
    .filter((x) => x !== '')
    .join(' ');

/**
 * Sources whose events name several KV cache groups (a hybrid model): vLLM publishes each block
 * once per group. The figures here count by hash, all groups together, unless KV Scope was started
 * with --group N: then they are that group's alone, and the note says so whatever the sources.
 */
function KvCacheGroupsNote({
  report,
  label,
}: {
  report: AnalysisReport;
  label: (id: string) => string;
}) {
  const multi = report.sources.filter((s) => s.kvCacheGroupCount > 1);
  if (multi.length === 0 && report.group === null) return null;
  const named = multi
    .map(
      (s) =>
        `${label(s.source)} publishes ${s.kvCacheGroupsCapped ? 'more than ' : ''}${s.kvCacheGroupCount} KV cache groups (${s.kvCacheGroups.map(groupText).join(', ')}${s.kvCacheGroupCount > s.kvCacheGroups.length ? ', …' : ''})`,
    )
    .join('; ');
  if (report.group !== null)
    return (
      <p className="small" data-testid="kv-cache-groups">
        {named && `${named}. `}These figures are KV cache group {report.group}&apos;s alone (KV
        Scope runs with <code>--group {report.group}</code>): the other groups&apos; stores and
        removals are counted, not applied. The Overview counts every group.
      </p>
    );
  return (
    <p className="small" data-testid="kv-cache-groups">
      {named}: a hybrid model, each block published once per group. These figures count by hash, the
      groups together: a store into a second group reads as a hit, and a removal from one group ends
      the block. <code>kvscope analyze --group N</code> analyses one group alone, and so do{' '}
      <code>kvscope serve --group N</code> and <code>kvscope desktop --group N</code> here.
    </p>
  );
}

/** The answers: is the cache big enough, what thrashes, how long blocks live, what is held twice. */
export function InsightsView({ onOpenChain }: Props) {
  const { frame } = useFrameState();
  const { theme } = useTheme();
  const colors = chartColors(theme);
  const names = useSourceNames();
  const [report, setReport] = useState<AnalysisReport | null>(null);
  // Names two sources share keep the id beside (the filters' rule).
  const label = useMemo(() => {
    const nameOf = (id: string): string => sourceLabel(names, id);
    const byId = labelsById(report?.sources.map((s) => s.source) ?? [], nameOf);
    return (id: string): string => byId.get(id) ?? nameOf(id);
  }, [names, report]);
  const [error, setError] = useState<string | null>(null);
  // The Thrash panel's window, shared with its tile and kept across reloads; null: the report's own.
  const [thrashPick, setThrashPick] = useState<number | null>(storedThrashPick);
  const load = useCallback(async () => {
    try {
      setReport(await bridge().getInsights());
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useThrottledRefresh(load, 1000, frame?.n, true);

  if (!report) {
    return <p className="muted">{error ? `Could not load the insights: ${error}` : 'Loading…'}</p>;
  }
  const verdict = insightsVerdict(report, label);
  // A pick kept from an earlier load holds where this report counts that window.
  const thrashWindowS =
    thrashPick !== null && thrashWindows(report).includes(thrashPick)
      ? thrashPick
      : report.thrashWindowS;
  // Rows without a re-store would gain nothing from more capacity: named in one line, not drawn.
  const ranked = [...report.whatIf].sort(
    (a, b) => b.restores - a.restores || b.newStores - a.newStores,
  );
  const whatIf = ranked.filter((w) => w.restores > 0).slice(0, MAX_WHAT_IF);
  // A row with no re-store says "no more hits" only once it could have seen one (restoresSettled).
  const unsettled = ranked.filter(
    (w) => w.restores === 0 && !restoresSettled(w, report.thrashWindowS),
  );
  const quiet = ranked.filter((w) => w.restores === 0 && restoresSettled(w, report.thrashWindowS));
  const where = (w: WhatIfReport): string => `${label(w.source)} ${w.medium}`;
  const hits = report.totals;
  return (
    <div className="insights" data-testid="insights">
      <section className="panel verdict" aria-label="Verdict" data-testid="insights-verdict">
        {verdict.map((line) => (
          <p key={line}>{line}</p>
        ))}
        {report.estimate && (
          <p className="muted small">Some figures are sampled estimates (a bounded memory).</p>
        )}
        <KvCacheGroupsNote report={report} label={label} />
        {report.batchesPastSourceLimit > 0 && (
          <p className="small" data-testid="sources-past-limit">
            More than {formatInt(MAX_ANALYSED_SOURCES)} sources at once:{' '}
            {formatInt(report.batchesPastSourceLimit)} batches of the sources past them are left out
            of these figures.
          </p>
        )}
        {listsCut(report) && (
          <p className="small" data-testid="lists-cut">
            The lists below name the first {formatInt(report.sources.length)} of{' '}
            {formatInt(report.sourceCount)} sources (the what-if, the first{' '}
            {formatInt(report.whatIf.length)} of {formatInt(report.whatIfCount)} source media);
            every total counts them all.
          </p>
        )}
        {error && <p className="error">Could not refresh: {error}</p>}
      </section>
      <InsightFigures report={report} thrashWindowS={thrashWindowS} />
      <section className="panel insight-panel" aria-label="Hits" data-testid="hits-panel">
        <h3>Hits</h3>
        {hits.hitRatio === null ? (
          <p className="muted">
            This engine does not re-announce reused blocks, so hits are not in the stream. vLLM does
            with <code>kv_cache_report_mode=&quot;full&quot;</code> in its{' '}
            <code>--kv-events-config</code>.
          </p>
        ) : (
          <p>
            {formatInt(hits.announcedHits)} announced hits against {formatInt(hits.newStores)} new
            stores: a hit ratio of{' '}
            <strong data-testid="insight-hit-ratio" data-value={hits.hitRatio}>
              {formatPercent(hits.hitRatio)}
            </strong>
            .
          </p>
        )}
      </section>
      <h2 className="insights-heading">Is the cache big enough?</h2>
      {quiet.length > 0 && (
        <p className="muted" data-testid="what-if-quiet">
          No re-store on {nameList(quiet.map(where))}: more capacity there would add no hits.
        </p>
      )}
      {unsettled.length > 0 && (
        <p className="muted" data-testid="what-if-unsettled">
          Not known yet for {nameList(unsettled.map(where))}: no re-store so far, but it has evicted
          none of the blocks it was seen storing
          {report.input.resets + report.input.clears > 0 ? ' since its last restart or clear' : ''},
          or stores have not run {formatInt(report.thrashWindowS)} s past its first eviction.
        </p>
      )}
      {whatIf.length > 0 && (
        <div className="insight-grid">
          {whatIf.map((w) => (
            <WhatIfPanel
              key={`${w.source}\u0000${w.medium}`}
              w={w}
              label={label(w.source)}
              colors={colors}
              lostBatches={report.input.lostBatches}
            />
          ))}
        </div>
      )}
      <ThrashPanel
        report={report}
        colors={colors}
        windowS={thrashWindowS}
        onWindowChange={(w) => {
          setThrashPick(w);
          storeThrashPick(w);
        }}
      />
      <LifetimePanel
        lifetimes={report.lifetimes}
        backwardRemovals={report.input.backwardRemovals}
        colors={colors}
      />
      {report.sources.length >= 2 && <RouterPanel report={report} label={label} />}
      <HotPrefixesPanel
        prefixes={report.hotPrefixes}
        exact={report.hotPrefixesExact}
        onOpenChain={onOpenChain}
      />
    </div>
  );
}
