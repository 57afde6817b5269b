// A window of a long server-side list (chains, events) around what a virtual list shows,
// refreshed with new frames and fetched again when the user scrolls past it.

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { errorText } from '../bridge/bridge';
import { useThrottledRefresh } from './use-throttled-refresh';

export interface PageResult<T> {
  total: number;
  /** Where the rows start, when not where they were asked from (a page past a shrunk end). */
  offset?: number;
  rows: T[];
}

export interface Loaded<T, P> {
  key: string;
  /** The question it answers: rows are kept only from an answer to the same one. */
  fetchPage: unknown;
  total: number;
  offset: number;
  rows: T[];
  page: P;
}

export interface PagedRows<T, P extends PageResult<T> = PageResult<T>> {
  /** null until the first page of this key arrives. */
  total: number | null;
  /** Rows the list has: the total, or more while it keeps rows the server let go (`keepBy`). */
  length: number | null;
  /** The latest page of this key as the server sent it (for fields besides the rows). */
  page: P | null;
  rowAt(index: number): T | undefined;
  /** Index of the first loaded row that satisfies `test`, or undefined. */
  findIndex(test: (row: T) => boolean): number | undefined;
  /** Tells which rows are on screen; fetches them when they are not loaded. */
  setRange(start: number, end: number): void;
  error: string | null;
}

const MARGIN = 60;
const MAX_LIMIT = 400;

/** Rows a held list keeps at most: those nearest the screen (about 4 MB of event rows). */
export const KEEP_MAX_ROWS = 4_000;

/**
 * A refreshed page joined with the rows loaded before, where the server let some go (a held
 * event list's oldest rows leave the log as new events arrive: at 17,000 events/s the rows a
 * reader had paused on were gone in 3 s). Rows keep their index while the question is the same,
 * which `id` checks: where both have a row at one index and they differ, nothing is kept. A page
 * with no rows (all gone) keeps the rows loaded; one apart from them (a jump far down) replaces
 * them. At most KEEP_MAX_ROWS stay, those nearest the rows asked for ([from, from + limit)).
 */
export function withKeptRows<T, P>(
  last: Loaded<T, P>,
  next: Loaded<T, P>,
  from: number,
  limit: number,
  id: (row: T) => unknown,
): Loaded<T, P> {
  const lastEnd = last.offset + last.rows.length;
  const nextEnd = next.offset + next.rows.length;
  if (next.rows.length === 0)
    return last.rows.length === 0 ? next : { ...next, offset: last.offset, rows: last.rows };
  if (next.offset > lastEnd || nextEnd < last.offset) return next;
  const start = Math.min(last.offset, next.offset);
  const end = Math.max(lastEnd, nextEnd);
  const rows: T[] = [];
  for (let i = start; i < end; i++) {
    const fresh = i >= next.offset && i < nextEnd ? next.rows[i - next.offset] : undefined;
    const old = i >= last.offset && i < lastEnd ? last.rows[i - last.offset] : undefined;
    if (fresh !== undefined && old !== undefined && id(fresh) !== id(old)) return next;
    rows.push((fresh ?? old) as T);
  }
  if (rows.length <= KEEP_MAX_ROWS) return { ...next, offset: start, rows };
  const at = Math.max(
    start,
    Math.min(from - Math.floor((KEEP_MAX_ROWS - limit) / 2), end - KEEP_MAX_ROWS),
  );
  return { ...next, offset: at, rows: rows.slice(at - start, at - start + KEEP_MAX_ROWS) };
}

/**
 * Keeps the visible rows of a paged list loaded. `key` names the rows shown (a change drops them
 * until the new ones arrive); a new `fetchPage` under the same key refetches while the old rows
 * stay on screen, and a page still in flight from an older `fetchPage` is dropped when it lands.
 * `keepBy` (a row's identity), while the list is held: rows on screen that a refresh no longer
 * returns stay (withKeptRows).
 */
export function usePagedRows<T, P extends PageResult<T> = PageResult<T>>(
  fetchPage: (offset: number, limit: number) => Promise<P>,
  key: string,
  tick: unknown,
  live: boolean,
  intervalMs: number,
  keepBy: ((row: T) => unknown) | null = null,
): PagedRows<T, P> {
  const [loaded, setLoaded] = useState<Loaded<T, P> | null>(null);
  const fetchRef = useRef(fetchPage);
  const keepRef = useRef(keepBy);
  // Layout effect: set before any timer of the throttle can run after the render that changed it.
  useLayoutEffect(() => {
    fetchRef.current = fetchPage;
    keepRef.current = keepBy;
  }, [fetchPage, keepBy]);
  // Keyed like the rows, so an error of an earlier query is not shown for a new one.
  const [error, setError] = useState<{ key: string; text: string } | null>(null);
  const rangeRef = useRef({ start: 0, end: 50 });

  const load = useCallback(async () => {
    const { start, end } = rangeRef.current;
    const offset = Math.max(0, start - MARGIN);
    const limit = Math.min(MAX_LIMIT, end - start + 2 * MARGIN);
    try {
      const page = await fetchPage(offset, limit);
      // Asked under an older question (before a freeze, say): its rows would show the wrong thing.
      if (fetchRef.current !== fetchPage) return;
      const next = {
        key,
        fetchPage,
        total: page.total,
        offset: page.offset ?? offset,
        rows: page.rows,
        page,
      };
      const id = keepRef.current;
      setLoaded((last) =>
        id && last && last.key === key && last.fetchPage === fetchPage
          ? withKeptRows(last, next, offset, limit, id)
          : next,
      );
      setError(null);
    } catch (e) {
      setError({ key, text: errorText(e) });
    }
  }, [fetchPage, key]);

  const trigger = useThrottledRefresh(load, intervalMs, tick, live);
  const current = loaded && loaded.key === key ? loaded : null;
  const currentRef = useRef(current);
  useEffect(() => {
    currentRef.current = current;
  }, [current]);

  const setRange = useCallback(
    (start: number, end: number) => {
      rangeRef.current = { start, end };
      const c = currentRef.current;
      // Rows past the list's end are never loaded: the loaded page covers the range when it
      // reaches the range's end or the list's (End jumps there; a frozen list has no tick to
      // fetch it later).
      const covered =
        c != null && start >= c.offset && Math.min(end, c.total) <= c.offset + c.rows.length;
      if (!covered) trigger();
    },
    [trigger],
  );

  return {
    total: current ? current.total : null,
    length: current ? Math.max(current.total, current.offset + current.rows.length) : null,
    page: current ? current.page : null,
    rowAt: (i) => (current ? current.rows[i - current.offset] : undefined),
    findIndex: (test) => {
      const i = current ? current.rows.findIndex(test) : -1;
      return current && i >= 0 ? current.offset + i : undefined;
    },
    setRange,
    error: error && error.key === key ? error.text : null,
  };
}
