import { describe, expect, it } from 'vitest';
import { withKeptRows, type Loaded } from '../../renderer/state/use-paged-rows';

const page = (offset: number, rows: number[], total: number): Loaded<number, null> => ({
  key: 'k',
  fetchPage: null,
  total,
  offset,
  rows,
  page: null,
});
const id = (r: number) => r;

describe('rows kept while a list is held', () => {
  it('keeps the rows a refresh no longer returns, in their places', () => {
    // Rows 0..9 shown; the log let rows 6..9 go (the oldest of a newest-first list).
    const last = page(0, [90, 89, 88, 87, 86, 85, 84, 83, 82, 81], 10);
    const next = page(0, [90, 89, 88, 87, 86, 85], 6);
    const kept = withKeptRows(last, next, 0, 10, id);
    expect(kept.rows).toEqual(last.rows);
    expect(kept.offset).toBe(0);
    expect(kept.total).toBe(6);
    // Every one gone: all stay.
    expect(withKeptRows(last, page(0, [], 0), 0, 10, id).rows).toEqual(last.rows);
  });

  it('keeps only the rows asked for (the screen and its margin)', () => {
    const last = page(0, [90, 89, 88, 87, 86, 85, 84, 83, 82, 81], 10);
    const kept = withKeptRows(last, page(4, [], 0), 4, 3, id);
    expect(kept.offset).toBe(4);
    expect(kept.rows).toEqual([86, 85, 84]);
  });

  it('keeps nothing when the rows moved (another question) or nothing left', () => {
    const last = page(0, [90, 89, 88, 87], 4);
    const moved = page(0, [95, 94], 2);
    expect(withKeptRows(last, moved, 0, 4, id)).toBe(moved);
    const same = page(0, [90, 89, 88, 87], 4);
    expect(withKeptRows(last, same, 0, 4, id)).toBe(same);
  });
});
