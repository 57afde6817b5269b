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

interface Loaded<T, P> {
  key: string;
  total: number;
  offset: number;
  rows: T[];
  page: P;
}

export interface PagedRows<T, P extends PageResult<T> = PageResult<T>> {
  /** null until the first page of this key arrives. */
  total: number | null;
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

/**
 * Keeps the visible rows of a paged list loaded. `key` names the rows shown (a change drops them
 * until the new ones arrive); a new `fetchPage` under the same key refetches while the old rows
 * stay on screen, and a page still in flight from an older `fetchPage` is dropped when it lands.
 */
export function usePagedRows<T, P extends PageResult<T> = PageResult<T>>(
  fetchPage: (offset: number, limit: number) => Promise<P>,
  key: string,
  tick: unknown,
  live: boolean,
  intervalMs: number,
): PagedRows<T, P> {
  const [loaded, setLoaded] = useState<Loaded<T, P> | null>(null);
  const fetchRef = useRef(fetchPage);
  // Layout effect: set before any timer of the throttle can run after the render that changed it.
  useLayoutEffect(() => {
    fetchRef.current = fetchPage;
  }, [fetchPage]);
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
      setLoaded({ key, total: page.total, offset: page.offset ?? offset, rows: page.rows, page });
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
