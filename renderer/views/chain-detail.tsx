import type { ReactNode } from 'react';
import type { BlockHistory, ChainDetail as Detail } from '../../shared/api-types';
import { HashText } from '../components/hash-text';
import { formatClock, formatDateTime, formatDuration, formatInt, plural } from '../lib/format';
import { sourceLabels } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';
import { VirtualRows } from '../components/virtual-rows';

interface Props {
  detail: Detail | null;
  loading: boolean;
  onClose(): void;
  names: SourceNames;
}

const noop = (): void => undefined;

/**
 * The latest of `total` times and how many came before it: "(+228)" beside 229 stores, not the
 * count the history keeps (it keeps the last few; "(+7)" beside 93 stores read as 7 more).
 */
function times(ts: number[], total: number): ReactNode {
  if (ts.length === 0) return '—';
  const last = ts[ts.length - 1] ?? 0;
  if (total <= 1) return formatClock(last);
  // A narrow table leaves the count out: the Stores column and the tooltip still have it.
  return (
    <>
      {formatClock(last)}
      <span className="narrow-hidden"> (+{formatInt(total - 1)})</span>
    </>
  );
}

/** The tooltip: the times kept, and that they are the latest of more when some were let go. */
function timesTitle(ts: number[], total: number, what: string): string {
  const head = total > ts.length ? `the latest ${ts.length} of ${formatInt(total)} ${what}:\n` : '';
  return head + ts.map((t) => formatDateTime(t)).join('\n');
}

interface RowProps {
  b: BlockHistory;
  i: number;
  names: SourceNames;
  tabIndex: 0 | -1;
}

function BlockRow({ b, i, names, tabIndex }: RowProps) {
  return (
    <div role="row" tabIndex={tabIndex} className="trow" data-testid="block-row">
      <div role="cell" className="cell num">
        {formatInt(i + 1)}
      </div>
      <div role="cell" className="cell">
        <HashText hash={b.hash} fit />
      </div>
      <div role="cell" className="cell">
        <span className={`lamp ${b.resident ? 'lamp-ok' : 'lamp-off'}`} aria-hidden="true" />
        {b.resident ? 'resident' : 'evicted'}
      </div>
      <div role="cell" className="cell ellipsis">
        {b.medium ?? '—'}
      </div>
      <div role="cell" className="cell num narrow-hidden">
        {formatInt(b.tokens)}
      </div>
      <div role="cell" className="cell num">
        {formatInt(b.timesStored)}
      </div>
      <div role="cell" className="cell" title={timesTitle(b.storedAt, b.timesStored, 'stores')}>
        {times(b.storedAt, b.timesStored)}
      </div>
      <div role="cell" className="cell" title={timesTitle(b.removedAt, b.timesRemoved, 'removals')}>
        {times(b.removedAt, b.timesRemoved)}
      </div>
      <div role="cell" className="cell">
        {formatDuration(b.lastLifetimeSec)}
      </div>
      <div role="cell" className="cell ellipsis" title={sourceLabels(names, b.sources)}>
        {b.sources.length ? sourceLabels(names, b.sources) : '—'}
      </div>
    </div>
  );
}

/** One chain: its blocks from the root, each with its store/remove history. */
export function ChainDetail({ detail, loading, onClose, names }: Props) {
  if (!detail) {
    return (
      <section className="panel detail" aria-label="Chain detail" tabIndex={-1}>
        <p className="muted">
          {loading ? 'Loading the chain…' : 'This chain is no longer known (evicted long ago).'}
        </p>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </section>
    );
  }
  const s = detail.summary;
  return (
    // Focusable by a click, as the event detail is: Escape closes it after a click on a blank part.
    <section
      className="panel detail"
      aria-label="Chain detail"
      data-testid="chain-detail"
      tabIndex={-1}
    >
      <div className="detail-head">
        <h2>
          Chain <HashText hash={s.leaf} max={40} />
        </h2>
        <span className="muted">
          {plural(s.depthBlocks, 'block')} · {plural(s.depthTokens, 'token')} ·{' '}
          {formatInt(s.residentBlocks)} resident · {formatInt(s.evictedBlocks)} evicted ·{' '}
          {/* The list's word for it ("Recomputed"): "re-stores" is the Insights' own figure. */}
          {formatInt(s.restores)} recomputed · root <HashText hash={s.root} max={16} />
        </span>
        <button
          type="button"
          className="btn btn-small"
          onClick={onClose}
          aria-label="Close the chain detail"
        >
          Close
        </button>
      </div>
      <div className="table block-table" role="table" aria-label="Blocks of the chain, root first">
        <div className="trow thead" role="row">
          {[
            '#',
            'Block hash',
            'State',
            'Medium',
            'Tokens',
            'Stores',
            'Stored at',
            'Removed at',
            'Last lifetime',
            'Held by',
          ].map((h) => (
            // Left out when narrow: the head line gives the chain's tokens.
            <div
              key={h}
              role="columnheader"
              className={h === 'Tokens' ? 'cell narrow-hidden' : 'cell'}
            >
              {h}
            </div>
          ))}
        </div>
        <VirtualRows
          count={detail.blocks.length}
          rowHeight={26}
          onRange={noop}
          label="Block rows"
          testId="block-rows"
          roving
          hashesAt={(i) => {
            const b = detail.blocks[i];
            return b ? [b.hash] : undefined;
          }}
          renderRow={(i, tabIndex) => {
            const b = detail.blocks[i];
            return b ? <BlockRow b={b} i={i} names={names} tabIndex={tabIndex} /> : null;
          }}
        />
      </div>
    </section>
  );
}
