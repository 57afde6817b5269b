// A window of a long server-side list (chains, events) around what a virtual list shows,
// refreshed with new frames and fetched again when the user scrolls past it.

import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../bridge/bridge';
import { useThrottledRefresh } from './use-throttled-refresh';

export interface PageResult<T> {
  total: number;
  rows: T[];
}

interface Loaded<T> {
  key: string;
  total: number;
  offset: number;
  rows: T[];
}

export interface PagedRows<T> {
  /** null until the first page of this key arrives. */
  total: number | null;
  rowAt(index: number): T | undefined;
  /** Tells which rows are on screen; fetches them when they are not loaded. */
  setRange(start: number, end: number): void;
  error: string | null;
}

const MARGIN = 60;
const MAX_LIMIT = 400;

/** Keeps the visible rows of a paged list loaded; `key` names the query (a change refetches). */
export function usePagedRows<T>(
  fetchPage: (offset: number, limit: number) => Promise<PageResult<T>>,
  key: string,
  tick: unknown,
  live: boolean,
  intervalMs: number,
): PagedRows<T> {
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);
  // Keyed like the rows, so an error of an earlier query is not shown for a new one.
  const [error, setError] = useState<{ key: string; text: string } | null>(null);
  const rangeRef = useRef({ start: 0, end: 50 });

  const load = useCallback(async () => {
    const { start, end } = rangeRef.current;
    const offset = Math.max(0, start - MARGIN);
    const limit = Math.min(MAX_LIMIT, end - start + 2 * MARGIN);
    try {
      const page = await fetchPage(offset, limit);
      setLoaded({ key, total: page.total, offset, rows: page.rows });
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
      const covered = c != null && start >= c.offset && end <= c.offset + c.rows.length;
      const atEnd = c != null && end >= c.total;
      if (!covered && !atEnd) trigger();
    },
    [trigger],
  );

  return {
    total: current ? current.total : null,
    rowAt: (i) => (current ? current.rows[i - current.offset] : undefined),
    setRange,
    error: error && error.key === key ? error.text : null,
  };
}
