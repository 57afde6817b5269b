import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';

interface Props {
  count: number;
  rowHeight: number;
  /** Told which rows are on screen, so their data can be fetched. */
  onRange(start: number, end: number): void;
  renderRow(index: number): ReactNode;
  label: string;
  testId: string;
}

/** A virtualized scrolling body: only the rows on screen are in the DOM. */
export function VirtualRows({ count, rowHeight, onRange, renderRow, label, testId }: Props) {
  const parentRef = useRef<HTMLDivElement>(null);
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
  return (
    <div
      ref={parentRef}
      className="vscroll"
      role="rowgroup"
      aria-label={label}
      data-testid={testId}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => (
          <div
            key={item.key}
            className="vrow"
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              height: rowHeight,
              transform: `translateY(${item.start}px)`,
            }}
          >
            {renderRow(item.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
