import type { ChainSort, ChainSummary } from '../../shared/api-types';
import { HashText } from '../components/hash-text';
import { formatAgo, formatClock, formatDateTime, formatInt } from '../lib/format';
import { sourceLabels } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';
import type { PagedRows } from '../state/use-paged-rows';
import { VirtualRows } from '../components/virtual-rows';

interface Column {
  label: string;
  sort?: ChainSort;
  title: string;
  /** Left out of a narrow table (tables.css): the chain's detail shows it. */
  narrowHidden?: boolean;
}

const COLUMNS: Column[] = [
  { label: 'Leaf (chain id)', title: 'Hash of the last block: one chain per leaf' },
  { label: 'Root', title: 'Hash of the first block', narrowHidden: true },
  { label: 'Blocks', sort: 'depth', title: 'Depth in blocks' },
  { label: 'Tokens', title: 'Depth in tokens' },
  { label: 'Resident', sort: 'resident', title: 'Blocks of the chain in a cache now' },
  { label: 'Evicted', sort: 'evicted', title: 'Blocks of the chain removed since' },
  {
    label: 'Recomputed',
    sort: 'restores',
    title:
      'Stores of its blocks while no source held them in any medium, after their removal (an offload to CPU is a move, not counted). The Insights count re-stores per source and medium.',
  },
  { label: 'Sources', sort: 'sources', title: 'Sources holding blocks of it' },
  { label: 'First seen', sort: 'firstSeen', title: 'First store of a block of the chain' },
  { label: 'Last seen', sort: 'lastSeen', title: 'Latest activity' },
];

interface Props {
  paged: PagedRows<ChainSummary>;
  sort: ChainSort;
  desc: boolean;
  onSort(sort: ChainSort): void;
  selected: string | null;
  onSelect(id: string): void;
  nowTs: number | null;
  names: SourceNames;
  onAtTopChange(atTop: boolean): void;
  /** Told when the keyboard takes a row and when it leaves the list (the list holds meanwhile). */
  onKeyboardChange(on: boolean): void;
  /** Told when the pointer comes over the rows and leaves them (the list holds meanwhile). */
  onPointerOverChange(over: boolean): void;
  /** Scrolls back to the top whenever this number changes. */
  toTop: number;
  /** Scrolls to this row, once for each new object given. */
  reveal: { index: number } | null;
}

/**
 * The chains as a sortable, virtualized table. The keyboard focus follows its chain when the live
 * list reorders, so Enter opens the chain the reader is on.
 */
export function ChainList({
  paged,
  sort,
  desc,
  onSort,
  selected,
  onSelect,
  nowTs,
  names,
  onAtTopChange,
  onKeyboardChange,
  onPointerOverChange,
  toTop,
  reveal,
}: Props) {
  const count = paged.total ?? 0;
  return (
    <div className="table chain-table" role="table" aria-label="Chains" aria-rowcount={count}>
      <div className="trow thead" role="row">
        {COLUMNS.map((c) => (
          <div
            key={c.label}
            role="columnheader"
            className={c.narrowHidden ? 'cell narrow-hidden' : 'cell'}
            title={c.title}
            aria-sort={c.sort === sort ? (desc ? 'descending' : 'ascending') : undefined}
          >
            {c.sort ? (
              <button type="button" className="sort-btn" onClick={() => c.sort && onSort(c.sort)}>
                {c.label}
                {c.sort === sort ? (desc ? ' ▼' : ' ▲') : ''}
              </button>
            ) : (
              c.label
            )}
          </div>
        ))}
      </div>
      {paged.total === 0 ? (
        <div className="empty muted">
          No chains match. Stored blocks form chains as they arrive.
        </div>
      ) : (
        <VirtualRows
          count={count}
          rowHeight={28}
          onRange={paged.setRange}
          label="Chain rows"
          testId="chain-rows"
          roving
          onAtTopChange={onAtTopChange}
          onKeyboardChange={onKeyboardChange}
          onPointerOverChange={onPointerOverChange}
          toTop={toTop}
          reveal={reveal}
          keepInView={selected}
          keyAt={(i) => paged.rowAt(i)?.id}
          indexOfKey={(id) => paged.findIndex((c) => c.id === id)}
          hashesAt={(i) => {
            const id = paged.rowAt(i)?.id;
            return id === undefined ? undefined : [id];
          }}
          renderRow={(i, tabIndex) => {
            const c = paged.rowAt(i);
            if (!c) {
              return (
                <div role="row" tabIndex={tabIndex} className="trow loading muted">
                  …
                </div>
              );
            }
            return (
              <div
                role="row"
                tabIndex={tabIndex}
                className={`trow clickable ${c.id === selected ? 'selected' : ''}`}
                aria-selected={c.id === selected}
                data-testid="chain-row"
                data-chain-id={c.id}
                onClick={() => onSelect(c.id)}
                onKeyDown={(e) => {
                  // Enter opens; Space is the view's pause (the shortcuts list).
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    onSelect(c.id);
                  }
                }}
              >
                <div role="cell" className="cell">
                  <HashText hash={c.leaf} fit />
                </div>
                <div role="cell" className="cell narrow-hidden">
                  <HashText hash={c.root} fit />
                </div>
                <div role="cell" className="cell num">
                  {formatInt(c.depthBlocks)}
                </div>
                <div role="cell" className="cell num">
                  {formatInt(c.depthTokens)}
                </div>
                <div role="cell" className="cell num">
                  {formatInt(c.residentBlocks)}
                </div>
                <div role="cell" className="cell num">
                  {formatInt(c.evictedBlocks)}
                </div>
                <div role="cell" className={`cell num ${c.restores > 0 ? 'warn-text' : ''}`}>
                  {formatInt(c.restores)}
                </div>
                <div role="cell" className="cell ellipsis" title={sourceLabels(names, c.sources)}>
                  {c.sources.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    sourceLabels(names, c.sources)
                  )}
                </div>
                <div role="cell" className="cell" title={formatDateTime(c.firstSeen)}>
                  {formatClock(c.firstSeen)}
                </div>
                <div role="cell" className="cell" title={formatDateTime(c.lastSeen)}>
                  {formatAgo(c.lastSeen, nowTs)}
                </div>
              </div>
            );
          }}
        />
      )}
    </div>
  );
}
