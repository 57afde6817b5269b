import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import type { EventFilter, EventPage, EventRow as Row } from '../../shared/api-types';
import type { KvEventType } from '../../shared/events';
import { KV_EVENT_TYPES } from '../../shared/events';
import { bridge } from '../bridge/bridge';
import { formatDateTime, formatInt, nounFor, plural } from '../lib/format';
import { useFrameState } from '../state/frames';
import { usePauseKey } from '../state/pause-key';
import { useSourceNames } from '../state/use-source-names';
import { useSourceChoice } from '../state/use-source-choice';
import { usePagedRows } from '../state/use-paged-rows';
import { EventDetail } from './event-detail';
import { EventRow } from './event-row';
import { ExportButtons } from '../components/export-buttons';
import type { Notify } from '../components/file-actions';
import { SourceFilter } from '../components/source-filter';
import { VirtualRows } from '../components/virtual-rows';
import { hashSearch } from '../lib/hash-search';

const HEADERS = ['Time', 'Source', 'Seq', 'Type', 'Block hashes', 'Parent', 'Medium', 'Details'];
/** Left out of a narrow table, then a narrower one (tables.css): the event's detail shows them. */
const LEFT_OUT: Record<string, string> = { Parent: 'narrow-hidden', Seq: 'narrower-hidden' };

interface Props {
  /** An event time from a chart's point (or a #events?at= link): only the events before it. */
  at?: number;
  onClearAt?(): void;
  /** Shows the chains through a block in the Chains view (an event's "Show in Chains"). */
  onOpenChain?(hash: string): void;
  notify: Notify;
}

/** The hashes an event row stands for (Ctrl+C on it copies them). */
function rowHashes(r: Row | undefined): readonly string[] | undefined {
  return r && r.event.type !== 'AllBlocksCleared' ? r.event.block_hashes : undefined;
}

/**
 * The event log, newest first, filtered by type, source, medium and hash. Live, it holds still
 * once the reader scrolls down (new events wait above, counted); paused (Space, as on every
 * live view: Grafana's word), it is a snapshot until "Resume". Choosing a row shows all its fields beside the log; the export takes the filter.
 */
export function EventsView({ at, onClearAt, onOpenChain, notify }: Props) {
  const { frame } = useFrameState();
  const names = useSourceNames();
  const [types, setTypes] = useState<KvEventType[]>([...KV_EVENT_TYPES]);
  const viewSources = frame ? frame.view.sources.map((s) => s.id) : null;
  const [source, setSource] = useSourceChoice(viewSources, names, notify);
  const [medium, setMedium] = useState('');
  const [selected, setSelected] = useState<Row | null>(null);
  const [hashText, setHashText] = useState('');
  const [frozen, setFrozen] = useState(false);
  /** The newest arrival shown while held (frozen, or scrolled down): nothing newer comes in. */
  const [upTo, setUpTo] = useState<number | null>(null);
  const [toTop, setToTop] = useState(0);
  const typed = hashSearch(hashText);
  const hash = useDeferredValue(typed.hash);

  // The sources too: a removed one's events leave the log with it, not as the oldest go.
  const key = JSON.stringify([types, source, medium, hash, at, viewSources]);
  const filter = useMemo<EventFilter>(
    () => ({
      ...(types.length < KV_EVENT_TYPES.length ? { types } : {}),
      ...(source ? { source } : {}),
      ...(medium ? { medium } : {}),
      ...(hash ? { hash } : {}),
      ...(at !== undefined ? { beforeTs: at } : {}),
    }),
    [types, source, medium, hash, at],
  );
  const fetchPage = useCallback(
    (offset: number, limit: number) =>
      bridge().queryEvents({ ...filter, offset, limit, ...(upTo !== null ? { upTo } : {}) }),
    [filter, upTo],
  );
  // Refreshed while paused too: a snapshot up to `upTo` keeps its rows, and its counts (newer
  // events, those gone from the log) keep moving; frozen, they stood until the next keystroke.
  // Held, the rows on screen stay when they leave the log (it keeps the newest 50,000: a busy
  // engine's pushed them out in seconds), so a reader can still read what they paused on.
  const paged = usePagedRows<Row, EventPage>(
    fetchPage,
    key,
    frame?.n,
    true,
    500,
    upTo !== null ? keyOf : null,
  );
  const newest = paged.page?.newest ?? null;
  // Hold at what is on screen: the newest arrival of the page shown, so no row moves.
  const hold = () => setUpTo((u) => u ?? newest ?? -1);
  const held = upTo !== null;
  // Those that match the filters: a filter nothing new matches shows no newer events.
  const newer = held ? (paged.page?.newer ?? 0) : 0;
  // The oldest rows of a held list leave the event log as new events arrive: say how many went
  // since it was held (its total then, kept per hold and filter; set while rendering, as React
  // has state derived from props).
  const [heldTotal, setHeldTotal] = useState<{ key: string; upTo: number; total: number } | null>(
    null,
  );
  const sameHold = heldTotal !== null && heldTotal.key === key && heldTotal.upTo === upTo;
  if (!held && heldTotal !== null) setHeldTotal(null);
  else if (held && !sameHold && paged.total !== null)
    setHeldTotal({ key, upTo, total: paged.total });
  const left = held && sameHold ? Math.max(0, heldTotal.total - (paged.total ?? 0)) : 0;
  // Rows on screen among them stay (usePagedRows' keepBy): the list is longer than the log's count.
  const stayed = (paged.length ?? 0) - (paged.total ?? 0);
  const leftText =
    left > 0
      ? `${plural(left, 'older event')} left the log since the hold${stayed > 0 ? ` (the ${formatInt(stayed)} shown stay)` : ''}`
      : null;

  // A row opened holds the list too: new rows on top would push it down and out of view (the
  // list following it there would leave the top and hold only after the rows had moved). So
  // does a row the keyboard is on: the reader is reading it, open or not. And so does the pointer
  // resting on the rows: the row under it would change, and a click would open another one.
  const [atTop, setAtTop] = useState(true);
  const [keyboard, setKeyboard] = useState(false);
  // Read when deciding, a ref and not state: a click right after the pointer left the rows (on
  // the detail's close button) ran before the render that had it gone, and the list stayed held.
  const pointerOver = useRef(false);
  const release = () => {
    if (!frozen) setUpTo(null);
  };
  const onAtTopChange = (top: boolean) => {
    setAtTop(top);
    if (!top) hold();
    else if (!selected && !keyboard && !pointerOver.current) release();
  };
  const onKeyboardChange = (on: boolean) => {
    setKeyboard(on);
    if (on) hold();
    else if (atTop && !selected && !pointerOver.current) release();
  };
  const onPointerOverChange = (over: boolean) => {
    pointerOver.current = over;
    // Nothing shown yet, nothing moves under it: held then, the list stayed empty ("0 events
    // (held)" under the pointer of a chart's click that opened this view).
    if (over) {
      if (newest !== null) hold();
    } else if (atTop && !selected && !keyboard) release();
  };
  // Emptied by the log, the list has no rows to be scrolled or on: the reason has gone with them.
  const heldWhy =
    paged.length === 0
      ? ' (held)'
      : !atTop
        ? ' (held while scrolled)'
        : selected
          ? ' (held while a row is open)'
          : keyboard
            ? ' (held while the keyboard is on a row)'
            : ' (held while the pointer is on it)';
  const filtered = hash || source || medium || types.length < KV_EVENT_TYPES.length;
  // The log keeps the newest events in memory: once older ones have left it, the count says so
  // (50,000 read as every event while the Overview counted 59,542).
  const kept = paged.page?.kept;
  // Every held row gone from a full log: newer events may have left it too, so those it counts
  // are a floor ("50,000+"; 200,000 had come).
  const newerAtLeast = paged.total === 0 && kept !== undefined;
  const keptText =
    kept === undefined
      ? ''
      : filtered || at !== undefined
        ? ` of the newest ${formatInt(kept)} kept`
        : ', the newest kept';
  const countText =
    paged.length == null
      ? '…'
      : `${plural(paged.length, 'event')}${keptText}${frozen ? ' (paused)' : held ? heldWhy : ''}`;
  const select = (r: Row) => {
    hold();
    setSelected(r);
  };
  const freeze = () => {
    setFrozen(true);
    hold();
  };
  const goLive = () => {
    setFrozen(false);
    setUpTo(null);
    setToTop((n) => n + 1);
  };
  // Resumed with a row open, the list stays held by that row (its detail beside rows that show
  // it), counting what is newer; closing the row, or "▲ N newer events", goes live.
  const resume = () => {
    if (selected) setFrozen(false);
    else goLive();
  };
  usePauseKey(frozen ? resume : freeze);
  // "▲ N newer events": to the newest. A row open would hold the list again at once (and its
  // detail would stay beside rows that no longer show it): it closes.
  const toNewest = () => {
    setSelected(null);
    goLive();
  };
  const bodyRef = useRef<HTMLDivElement>(null);
  // Closing the detail from inside it hands the focus back to the list's Tab stop.
  const closeDetail = () => {
    const focused = document.activeElement;
    const hadFocus = bodyRef.current?.querySelector('.detail')?.contains(focused) ?? false;
    // Closed by Escape on a row, the keyboard is on that row now (the list's own handler said so,
    // after this view's state was read): the list stays held, the row where it was.
    const onRow = focused?.closest('[role=rowgroup] [role=row]') != null;
    const byKeys = hadFocus && (focused?.matches(':focus-visible') ?? false);
    setSelected(null);
    // The keyboard going back to the list keeps it held (its row takes the focus below).
    if (atTop && !keyboard && !pointerOver.current && !onRow && !byKeys) release();
    if (!hadFocus) return;
    // Closed by the keys, the focus goes back to the row; by the mouse, to the list itself: the
    // row, focused, would scroll the list gone live down to it (and hold it there, scrolled).
    requestAnimationFrame(() => {
      const list = bodyRef.current?.querySelector<HTMLElement>('[data-testid="event-rows"]');
      const row = byKeys ? list?.querySelector<HTMLElement>('[role=row][tabindex="0"]') : null;
      if (row) row.focus();
      else list?.focus({ preventScroll: true });
    });
  };

  const heldFromTs = paged.page?.heldFromTs;
  // What has every event: named once a frame says what the view is (before it, a file opened
  // read as "the recording").
  const keeper = frame
    ? frame.view.kind === 'session'
      ? 'the file opened'
      : 'the recording'
    : null;
  const emptyText =
    left > 0
      ? 'Every event this held list showed has left the event log since (it keeps the newest).'
      : at !== undefined && heldFromTs !== undefined
        ? // A chart clicked further back than the log reaches: the events were there, and went.
          `The events before ${formatDateTime(at)} have left the event log: it keeps the newest in memory, from ${formatDateTime(heldFromTs)} on${keeper ? ` (${keeper} has every one)` : ''}.`
        : `No events ${at !== undefined ? `before ${formatDateTime(at)}` : 'yet'}${filtered ? ' matching the filters' : ''}.`;

  const toggleType = (t: KvEventType) =>
    setTypes((ts) =>
      ts.includes(t)
        ? ts.filter((x) => x !== t)
        : KV_EVENT_TYPES.filter((x) => x === t || ts.includes(x)),
    );
  const media = frame?.media ?? [];

  return (
    <div className="events">
      <div className="filters" role="search">
        <fieldset className="type-filter">
          <legend className="sr-only">Event types</legend>
          {KV_EVENT_TYPES.map((t) => (
            <label key={t} className="check">
              <input
                type="checkbox"
                checked={types.includes(t)}
                onChange={() => toggleType(t)}
                data-testid={`event-type-${t}`}
              />
              {t}
            </label>
          ))}
        </fieldset>
        <SourceFilter
          value={source}
          onChange={setSource}
          names={names}
          ids={viewSources ?? []}
          testId="event-source"
        />
        <label className="field">
          <span>Medium</span>
          <select
            value={medium}
            onChange={(e) => setMedium(e.target.value)}
            data-testid="event-medium"
          >
            <option value="">all media</option>
            {[...new Set([...media, ...(medium ? [medium] : [])])].map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label className="field grow">
          <span>Hash</span>
          <input
            type="search"
            placeholder="decimal, hex, or a prefix"
            spellCheck={false}
            value={hashText}
            onChange={(e) => setHashText(e.target.value)}
            data-testid="event-hash"
          />
        </label>
        <button
          type="button"
          className={`btn ${frozen ? 'btn-primary' : ''}`}
          aria-pressed={frozen}
          data-testid="event-freeze"
          title={
            frozen
              ? 'The log is a snapshot: resume to see events as they arrive'
              : 'Hold the log still (a snapshot) while you read it'
          }
          onClick={frozen ? resume : freeze}
        >
          {frozen ? '▶ Resume' : '❚❚ Pause'}
        </button>
        {/* The exports and the count always start a line of their own: the count's text grows as
            the list is held (why, and what left the log since), and on the filters' line it was
            cut to a few letters in a wide window. Always there, the line moves nothing. */}
        <span className="filters-break" aria-hidden="true" />
        <ExportButtons
          what="events"
          testId="export-events"
          notify={notify}
          // Frozen or held, the export is the snapshot on screen.
          run={(format) => bridge().exportEvents({ ...filter, ...(held ? { upTo } : {}) }, format)}
        />
        {/* What left the log goes in the count's own line, cut short like it: on a line of its
            own it would move the rows under the pointer as it appears. */}
        <span
          className="muted count"
          data-testid="event-count"
          title={
            leftText || kept !== undefined
              ? `${countText}${leftText ? `; ${leftText}` : ''} (the event log keeps the newest events in memory; ${keeper ?? 'the recording'} has every one)`
              : countText
          }
        >
          {countText}
          {leftText && <span data-testid="event-left">; {leftText}</span>}
        </span>
        {/* Beside the count, on the line that is always there: shown as the list is held (a row
            clicked open), it must move nothing under the pointer; over the header row, it hid the
            column names under it. */}
        {held && newer > 0 && (
          <button
            type="button"
            className="btn btn-small newer-pill"
            data-testid="event-newer"
            title="Events that arrived since the list was held (of any type or source)"
            // Pressed, it leaves the focus where it is: the keyboard's row holding the list would
            // lose it, and the hold the button before its click. Not a Tab stop for the same
            // reason; the keyboard leaving the rows is a way back to the newest too.
            tabIndex={-1}
            onMouseDown={(e) => e.preventDefault()}
            onClick={toNewest}
          >
            ▲ {formatInt(newer)}
            {newerAtLeast ? '+' : ''} {nounFor(newer, 'newer event')}
          </button>
        )}
        {at !== undefined && (
          <span className="chip" data-testid="event-at">
            Before {formatDateTime(at)}
            <button
              type="button"
              className="btn btn-ghost btn-small"
              aria-label="Show the events of every time"
              title="Show the events of every time"
              onClick={onClearAt}
            >
              ✕
            </button>
          </span>
        )}
      </div>
      {typed.refused && (
        <div className="error" data-testid="event-hash-refused">
          {typed.refused}
        </div>
      )}
      {paged.error && <div className="error">Could not load events: {paged.error}</div>}
      {types.length === 0 && <div className="muted">Pick at least one event type.</div>}
      <div
        ref={bodyRef}
        className={`events-body ${selected ? 'with-detail' : ''}`}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && selected) closeDetail();
        }}
      >
        <div className="table event-table" role="table" aria-label="Events, newest first">
          <div className="trow thead" role="row">
            {HEADERS.map((h) => (
              <div key={h} role="columnheader" className={`cell ${LEFT_OUT[h] ?? ''}`}>
                {h}
              </div>
            ))}
          </div>
          {paged.length === 0 ? (
            <div className="empty muted" data-testid="event-empty">
              {emptyText}
              {left > 0 && (
                // Nothing is left to scroll or to click: the way back to the newest is here.
                <>
                  {' '}
                  <button type="button" className="btn btn-small" onClick={goLive}>
                    Show the newest
                  </button>
                </>
              )}
            </div>
          ) : (
            <VirtualRows
              count={paged.length ?? 0}
              rowHeight={26}
              onRange={paged.setRange}
              label="Event rows"
              testId="event-rows"
              onAtTopChange={onAtTopChange}
              onKeyboardChange={onKeyboardChange}
              onPointerOverChange={onPointerOverChange}
              toTop={toTop}
              roving
              keyAt={(i) => keyOf(paged.rowAt(i))}
              indexOfKey={(k) => paged.findIndex((r) => keyOf(r) === k)}
              hashesAt={(i) => rowHashes(paged.rowAt(i))}
              renderRow={(i, tabIndex) => {
                const r = paged.rowAt(i);
                return r ? (
                  <EventRow
                    r={r}
                    names={names}
                    tabIndex={tabIndex}
                    selected={selected?.n === r.n && selected.source === r.source}
                    onSelect={select}
                  />
                ) : (
                  <div role="row" tabIndex={tabIndex} className="trow loading muted">
                    …
                  </div>
                );
              }}
            />
          )}
        </div>
        {selected && (
          <EventDetail
            row={selected}
            names={names}
            nowTs={frame?.nowTs ?? null}
            onClose={closeDetail}
            {...(onOpenChain ? { onOpenChain } : {})}
          />
        )}
      </div>
    </div>
  );
}

/** A row's identity across pages: its arrival number in the view. */
function keyOf(r: Row | undefined): string | undefined {
  return r === undefined ? undefined : String(r.n);
}
