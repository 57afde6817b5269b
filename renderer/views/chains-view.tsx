import {
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import type {
  ChainDetail as Detail,
  ChainFilter,
  ChainPage,
  ChainSort,
  ChainSummary,
  HashMatch,
} from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import { plural } from '../lib/format';
import { useFrameState } from '../state/frames';
import { usePauseKey } from '../state/pause-key';
import { useSourceNames } from '../state/use-source-names';
import { useSourceChoice } from '../state/use-source-choice';
import { usePagedRows } from '../state/use-paged-rows';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { ChainDetail } from './chain-detail';
import { ChainList } from './chain-list';
import { HashMatches } from './hash-matches';
import { hashSearch } from '../lib/hash-search';
import { ExportButtons } from '../components/export-buttons';
import type { Notify } from '../components/file-actions';
import { SourceFilter } from '../components/source-filter';

/** A failed load of the hash matches or of the chain detail; the next success clears it. */
interface LoadError {
  from: 'matches' | 'detail';
  text: string;
}

const clearFrom =
  (from: LoadError['from']) =>
  (e: LoadError | null): LoadError | null =>
    e?.from === from ? null : e;

interface Props {
  /** A hash to search for at once (a link from another view). */
  initialHash?: string;
  notify: Notify;
}

/** This screen's Chains view, to the service (one per page load: a tab switch keeps it). */
const CHAINS_VIEW = `chains-${Math.random().toString(36).slice(2, 10)}`;

/** The chain browser: a sortable, filterable list of chains and the detail of one. */
export function ChainsView({ initialHash, notify }: Props) {
  const { frame } = useFrameState();
  const names = useSourceNames();
  const [sort, setSort] = useState<ChainSort>('lastSeen');
  const [desc, setDesc] = useState(true);
  const [search, setSearch] = useState(initialHash ?? '');
  const viewSources = frame ? frame.view.sources.map((s) => s.id) : null;
  const [source, setSource] = useSourceChoice(viewSources, names, notify);
  const [residentOnly, setResidentOnly] = useState(false);
  const [paused, setPaused] = useState(false);
  // Scrolled down, with a chain open, with the keyboard on a row or the pointer over the rows,
  // the list holds its rows as a paused one does: new chains would push them (and the one read,
  // or the one about to be clicked) down and out of view.
  const [atTop, setAtTop] = useState(true);
  const [selected, setSelected] = useState<string | null>(null);
  const [keyboard, setKeyboard] = useState(false);
  const [pointer, setPointer] = useState(false);
  // The pointer holds rows that are there: over an empty list (the view just opened under it) a
  // hold kept it empty. Set as the page arrives, read as the pointer comes or moves.
  const rowsShown = useRef(false);
  const held = paused || !atTop || selected != null || keyboard || pointer;
  const [toTop, setToTop] = useState(0);
  const togglePause = () => {
    // Resume means live: back at the top, where the list is not held by the scroll either.
    if (paused) setToTop((n) => n + 1);
    setPaused((p) => !p);
  };
  usePauseKey(togglePause);
  const [detail, setDetail] = useState<{ id: string; value: Detail | null } | null>(null);
  const [matches, setMatches] = useState<{ text: string; value: HashMatch[] } | null>(null);
  const [error, setError] = useState<LoadError | null>(null);
  const typed = hashSearch(search);
  const hash = useDeferredValue(typed.hash);

  // Chains reorder with every block, so the service keeps, for this screen (an id of its own), the
  // chains of its latest live page; held, the list asks for those: every row of it can be scrolled
  // to, sorted and filtered by source or residency while the chains move on.
  const hadLivePage = useRef(false);
  // The generation of the rows on screen: held, the list asks for those (not a newer live page
  // answered as it was held, which never reached the screen).
  const shownGeneration = useRef<number | null>(null);
  const asked = useCallback(
    (f: ChainFilter): ChainFilter =>
      f.hold && shownGeneration.current !== null
        ? { ...f, generation: shownGeneration.current }
        : f,
    [],
  );
  // A page asked for before the list was held (or let go) says nothing of the hold now.
  const holdEpoch = useRef(0);
  useLayoutEffect(() => {
    holdEpoch.current += 1;
  }, [held]);
  const [renewed, setRenewed] = useState(false);
  const [wasHeld, setWasHeld] = useState(held);
  if (wasHeld !== held) {
    setWasHeld(held);
    setRenewed(false);
  }
  const filter = useMemo(
    (): ChainFilter => ({
      sort,
      desc,
      ...(hash ? { hash } : {}),
      ...(source ? { source } : {}),
      ...(residentOnly ? { residentOnly } : {}),
      view: CHAINS_VIEW,
      ...(held ? { hold: true } : {}),
    }),
    [sort, desc, hash, source, residentOnly, held],
  );
  const key = JSON.stringify([sort, desc, hash, source, residentOnly]);
  const fetchPage = useCallback(
    async (offset: number, limit: number) => {
      const epoch = holdEpoch.current;
      const locate = selected === null ? {} : { locate: selected };
      const page = await bridge().listChains({ ...asked(filter), ...locate, offset, limit });
      if (epoch === holdEpoch.current) {
        // Held before any live page came, there was nothing held to forget.
        if (held && page.renewed && hadLivePage.current) setRenewed(true);
        if (!held) hadLivePage.current = true;
      }
      return page;
    },
    [filter, held, asked, selected],
  );
  // Live, the rows follow the frames; held, they come from the chains held as they are scrolled to.
  const paged = usePagedRows<ChainSummary, ChainPage>(fetchPage, key, frame?.n, !held, 1000);
  useEffect(() => {
    rowsShown.current = (paged.total ?? 0) > 0;
  }, [paged.total]);
  useEffect(() => {
    // A new sort or filter shows no page until its own comes: the rows held are still those.
    if (paged.page !== null) shownGeneration.current = paged.page.generation;
  }, [paged.page]);
  // A new order or filter with a chain open scrolls to that chain's row where the order put it
  // (the service says where, loaded or not), as a file manager keeps the selection in view.
  const [reveal, setReveal] = useState<{ index: number } | null>(null);
  /** The order or filter whose first page said where the open chain is (paged.page is of `key`). */
  const [revealedFor, setRevealedFor] = useState(key);
  if (revealedFor !== key && paged.page !== null) {
    setRevealedFor(key);
    const at = paged.page.located;
    if (selected !== null && at !== undefined) setReveal({ index: at });
  }

  const loadMatches = useCallback(async () => {
    if (!hash) return;
    try {
      setMatches({ text: hash, value: await bridge().searchHash(hash) });
      setError(clearFrom('matches'));
    } catch (e) {
      setError({ from: 'matches', text: errorText(e) });
    }
  }, [hash]);
  useThrottledRefresh(loadMatches, 1000, frame?.n, hash !== '');

  const loadDetail = useCallback(async () => {
    if (!selected) return;
    try {
      setDetail({ id: selected, value: await bridge().getChain(selected) });
      setError(clearFrom('detail'));
    } catch (e) {
      setError({ from: 'detail', text: errorText(e) });
    }
  }, [selected]);
  useThrottledRefresh(loadDetail, 1000, frame?.n, selected != null);

  const onSort = (s: ChainSort) => {
    if (s === sort) setDesc((d) => !d);
    else {
      setSort(s);
      setDesc(true);
    }
  };
  const bodyRef = useRef<HTMLDivElement>(null);
  // Closing the detail from inside it (Close, Escape) hands the focus back to the chain's own row
  // (the Tab stop may be another chain's once the list was sorted) or else to the list's Tab stop,
  // instead of dropping it on the page.
  const closeDetail = () => {
    const detailEl = bodyRef.current?.querySelector('.detail');
    const hadFocus = detailEl?.contains(document.activeElement) ?? false;
    const closing = selected;
    setSelected(null);
    if (!hadFocus) return;
    requestAnimationFrame(() => {
      const body = bodyRef.current;
      const own =
        closing === null
          ? null
          : body?.querySelector<HTMLElement>(`[data-chain-id="${CSS.escape(closing)}"]`);
      (own ?? body?.querySelector<HTMLElement>('[role=row][tabindex="0"]'))?.focus();
    });
  };
  const heldWhy = paused
    ? 'paused'
    : !atTop
      ? 'held while scrolled'
      : selected != null
        ? 'held while a chain is open'
        : keyboard
          ? 'held while the keyboard is on a row'
          : held
            ? 'held while the pointer is on it'
            : null;
  const countText =
    (paged.total == null ? '…' : plural(paged.total, 'chain')) +
    (heldWhy === null ? '' : ` (${heldWhy}${renewed ? ', held anew' : ''})`);
  const shownDetail = detail && detail.id === selected ? detail.value : null;
  // An error only counts while what failed is still asked for.
  const loadError =
    error && (error.from === 'matches' ? hash !== '' : selected != null) ? error.text : null;

  return (
    <div className="chains">
      <div className="filters" role="search">
        <label className="field grow">
          <span>Find a hash</span>
          <input
            type="search"
            data-testid="chain-search"
            placeholder="decimal, hex, or a prefix"
            value={search}
            spellCheck={false}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <SourceFilter
          value={source}
          onChange={setSource}
          names={names}
          ids={viewSources ?? []}
          testId="chain-source"
        />
        <label
          className="check"
          title="Chains with a block in a cache now; with a source chosen, chains that source holds blocks of now (without it, chains the source ever stored)"
        >
          <input
            type="checkbox"
            checked={residentOnly}
            onChange={(e) => setResidentOnly(e.target.checked)}
          />
          resident only
        </label>
        <button
          type="button"
          className={`btn ${paused ? 'btn-primary' : ''}`}
          aria-pressed={paused}
          data-testid="chain-pause"
          title={
            paused
              ? 'The list is a snapshot: resume to see chains as they are now'
              : 'Hold the list still (a snapshot) while you read it'
          }
          onClick={togglePause}
        >
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
        <ExportButtons
          what="chains"
          testId="export-chains"
          notify={notify}
          run={(format) => bridge().exportChains(asked(filter), format)}
        />
        <span
          className="muted count"
          data-testid="chain-count"
          title={
            held && renewed
              ? `${countText}: the service no longer kept the chains this list held (unused for 10 minutes, 8 other screens since, or a restart), so it holds the chains as they were when it next asked`
              : countText
          }
        >
          {countText}
        </span>
      </div>
      <HashMatches
        text={hash}
        matches={matches && matches.text === hash ? matches.value : null}
        onSelect={setSelected}
      />
      {typed.refused && (
        <div className="error" data-testid="chain-search-refused">
          {typed.refused}
        </div>
      )}
      {(paged.error ?? loadError) && (
        <div className="error">Could not load chains: {paged.error ?? loadError}</div>
      )}
      <div
        ref={bodyRef}
        className={`chains-body ${selected ? 'with-detail' : ''}`}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && selected) closeDetail();
        }}
      >
        <ChainList
          paged={paged}
          sort={sort}
          desc={desc}
          onSort={onSort}
          selected={selected}
          onSelect={setSelected}
          nowTs={frame?.nowTs ?? null}
          names={names}
          onAtTopChange={setAtTop}
          onKeyboardChange={setKeyboard}
          onPointerOverChange={(over) => setPointer(over && rowsShown.current)}
          toTop={toTop}
          reveal={reveal}
        />
        {selected && (
          <ChainDetail
            detail={shownDetail}
            loading={detail?.id !== selected}
            onClose={closeDetail}
            names={names}
          />
        )}
      </div>
    </div>
  );
}
