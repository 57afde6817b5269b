import { describe, expect, it } from 'vitest';
import { nextRowIndex } from '../../renderer/lib/row-keys';

describe('row keys', () => {
  it('moves one row with the arrows, a page with PageUp/PageDown, to the ends with Home/End', () => {
    expect(nextRowIndex('ArrowDown', 3, 10, 4)).toBe(4);
    expect(nextRowIndex('ArrowUp', 3, 10, 4)).toBe(2);
    expect(nextRowIndex('PageDown', 3, 10, 4)).toBe(7);
    expect(nextRowIndex('PageUp', 3, 10, 4)).toBe(0);
    expect(nextRowIndex('Home', 7, 10, 4)).toBe(0);
    expect(nextRowIndex('End', 2, 10, 4)).toBe(9);
  });

  it('stays inside the list and ignores other keys', () => {
    expect(nextRowIndex('ArrowDown', 9, 10, 4)).toBe(9);
    expect(nextRowIndex('ArrowUp', 0, 10, 4)).toBe(0);
    expect(nextRowIndex('Enter', 2, 10, 4)).toBeNull();
    expect(nextRowIndex('ArrowDown', 0, 0, 4)).toBeNull();
  });
});
