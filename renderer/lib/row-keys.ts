// Keyboard movement in a list of rows (roving focus). Pure.

/** The row a key moves to from `current` in a list of `count`, or null for other keys. */
export function nextRowIndex(
  key: string,
  current: number,
  count: number,
  page: number,
): number | null {
  if (count <= 0) return null;
  const clamp = (i: number) => Math.min(count - 1, Math.max(0, i));
  switch (key) {
    case 'ArrowDown':
      return clamp(current + 1);
    case 'ArrowUp':
      return clamp(current - 1);
    case 'PageDown':
      return clamp(current + page);
    case 'PageUp':
      return clamp(current - page);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}
