import { describe, expect, it } from 'vitest';
import { KEEP_MAX_ROWS, withKeptRows, type Loaded } from '../../renderer/state/use-paged-rows';

const page = (offset: number, rows: number[], total: number): Loaded<number, null> => ({
  key: 'k',
  fetchPage: null,
  total,
  offset,
  rows,
  page: null,
});
const id = (r: number) => r;
/** Rows from..to-1 of a newest-first list whose row i is 1000 - i. */
const span = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => 1000 - from - i);

describe('rows kept while a list is held', () => {
  it('keeps the rows a refresh no longer returns, in their places', () => {
    // Rows 0..9 shown; the log let rows 6..9 go (the oldest of a newest-first list).
    const last = page(0, span(0, 10), 10);
    const kept = withKeptRows(last, page(0, span(0, 6), 6), 0, 10, id);
    expect(kept.rows).toEqual(span(0, 10));
    expect(kept.offset).toBe(0);
    expect(kept.total).toBe(6);
    // Every one gone: all stay.
    expect(withKeptRows(last, page(0, [], 0), 0, 10, id).rows).toEqual(span(0, 10));
  });

  it('keeps every row loaded when those asked for are gone (scrolled to the bottom and back up)', () => {
    // Loaded 0..157; scrolled to the bottom, the refresh asked 60..157 and the log had none.
    const last = page(0, span(0, 158), 158);
    const atBottom = withKeptRows(last, page(60, [], 0), 60, 98, id);
    expect(atBottom.offset).toBe(0);
    expect(atBottom.rows).toEqual(span(0, 158));
    // Scrolled back up, rows 0..59 are asked of a log that has none of them: they are still here.
    const up = withKeptRows(atBottom, page(0, [], 0), 0, 120, id);
    expect(up.offset).toBe(0);
    expect(up.rows).toEqual(span(0, 158));
  });

  it('joins fresh rows to kept ones, and keeps at most KEEP_MAX_ROWS, nearest those asked for', () => {
    const last = page(0, span(0, KEEP_MAX_ROWS), KEEP_MAX_ROWS);
    const next = page(KEEP_MAX_ROWS - 100, span(KEEP_MAX_ROWS - 100, KEEP_MAX_ROWS + 300), 9_000);
    const joined = withKeptRows(last, next, KEEP_MAX_ROWS, 300, id);
    expect(joined.rows).toHaveLength(KEEP_MAX_ROWS);
    expect(joined.offset).toBe(300);
    expect(joined.rows).toEqual(span(300, KEEP_MAX_ROWS + 300));
  });

  it('keeps nothing when the rows moved (another question), or when the page is far from them', () => {
    const last = page(0, span(0, 4), 4);
    const moved = page(0, [995, 994], 2);
    expect(withKeptRows(last, moved, 0, 4, id)).toBe(moved);
    const far = page(500, span(500, 510), 600);
    expect(withKeptRows(last, far, 500, 10, id)).toBe(far);
    expect(withKeptRows(page(0, [], 0), page(0, [], 0), 0, 4, id).rows).toEqual([]);
  });
});
