import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FocusEvent, KeyboardEvent, ReactNode } from 'react';
import { nextRowIndex } from '../lib/row-keys';

interface Props {
  count: number;
  rowHeight: number;
  /** Told which rows are on screen, so their data can be fetched. */
  onRange(start: number, end: number): void;
  /** tabIndex: 0 for the one row that takes Tab (roving focus), -1 for the others. */
  renderRow(index: number, tabIndex: 0 | -1): ReactNode;
  label: string;
  testId: string;
  /** Rows are focusable: one Tab stop for the list, arrows/Home/End/PageUp/PageDown move. */
  roving?: boolean;
}

/** A virtualized scrolling body: only the rows on screen are in the DOM. */
export function VirtualRows({
  count,
  rowHeight,
  onRange,
  renderRow,
  label,
  testId,
  roving,
}: Props) {
  const parentRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in render by design
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    onRange(first, last + 1);
  }, [first, last, onRange]);

  const focusRow = useCallback((index: number) => {
    const el = parentRef.current?.querySelector<HTMLElement>(`[data-index="${index}"] [role=row]`);
    el?.focus({ preventScroll: true });
    return el != null;
  }, []);

  const onKeyDown = (e: KeyboardEvent) => {
    if (!roving) return;
    const page = Math.max(1, Math.floor((parentRef.current?.clientHeight ?? 0) / rowHeight) - 1);
    const next = nextRowIndex(e.key, active, count, page);
    if (next == null) return;
    e.preventDefault();
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
    // The row may not be drawn yet: try now, then after the virtualizer has rendered it.
    if (!focusRow(next)) requestAnimationFrame(() => requestAnimationFrame(() => focusRow(next)));
  };
  const onFocus = (e: FocusEvent) => {
    const idx = (e.target as HTMLElement).closest<HTMLElement>('[data-index]')?.dataset.index;
    if (roving && idx != null) setActive(Number(idx));
  };
  const tabStop = Math.min(active, Math.max(0, count - 1));

  return (
    <div
      ref={parentRef}
      className="vscroll"
      role="rowgroup"
      aria-label={label}
      data-testid={testId}
      onKeyDown={onKeyDown}
      onFocus={onFocus}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => (
          <div
            key={item.key}
            className="vrow"
            data-index={item.index}
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              height: rowHeight,
              transform: `translateY(${item.start}px)`,
            }}
          >
            {renderRow(item.index, item.index === tabStop ? 0 : -1)}
          </div>
        ))}
      </div>
    </div>
  );
}
