import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { FocusEvent, KeyboardEvent, ReactNode } from 'react';
import { nextRowIndex } from '../lib/row-keys';
import { copyHashes } from '../state/copy-cue';

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
  /** What a row shows (a chain's id): the keyboard focus stays on it when the rows reorder. */
  keyAt?(index: number): string | undefined;
  /** Where the row with this key is now, among the rows loaded. */
  indexOfKey?(key: string): number | undefined;
  /** Told when the list leaves its top (the reader scrolled down) and when it is back there. */
  onAtTopChange?(atTop: boolean): void;
  /** Scrolls back to the top whenever this number changes. */
  toTop?: number;
  /** Scrolls to this row, once for each new object given (loaded or not). */
  reveal?: { index: number } | null;
  /** The hashes a row stands for: Ctrl+C (Cmd+C) on the focused row copies them. */
  hashesAt?(index: number): readonly string[] | undefined;
  /**
   * Told when the keyboard takes a row (an arrow, Home/End, a Tab or Escape into the list) and
   * when it leaves the list or the mouse takes over: a live list holds while the keyboard is on
   * one of its rows, as it does for a row that is open.
   */
  onKeyboardChange?(on: boolean): void;
  /**
   * Called as the pointer comes over the rows (and as it moves there) and as it leaves them: a
   * live list holds still under it, or the row under a resting pointer changes and a click opens
   * another one.
   */
  onPointerOverChange?(over: boolean): void;
  /**
   * The key of a row to keep in view when the list grows shorter (the open row's detail panel
   * opening or growing below it): scrolled to if it would leave the screen, else left still.
   */
  keepInView?: string | null;
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
  keyAt,
  indexOfKey,
  onAtTopChange,
  toTop,
  reveal,
  hashesAt,
  onKeyboardChange,
  onPointerOverChange,
  keepInView,
}: Props) {
  const parentRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  /** The key of the row that has the keyboard focus (null: none, or not known). */
  const focusedKey = useRef<string | null>(null);
  const atTop = useRef(true);
  const keyboardOn = useRef(false);
  const onKeyboardChangeRef = useRef(onKeyboardChange);
  useEffect(() => {
    onKeyboardChangeRef.current = onKeyboardChange;
  }, [onKeyboardChange]);
  // Stable (the resume's effect below calls it too): the caller's function is read through a ref.
  const setKeyboard = useCallback((on: boolean) => {
    if (on === keyboardOn.current) return;
    keyboardOn.current = on;
    onKeyboardChangeRef.current?.(on);
  }, []);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in render by design
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  // Read by the resize observer below, which lives as long as the list.
  const keepRef = useRef({ key: keepInView, indexOfKey });
  useEffect(() => {
    keepRef.current = { key: keepInView, indexOfKey };
  });
  useEffect(() => {
    const el = parentRef.current;
    if (!el) return;
    let height = el.clientHeight;
    const observer = new ResizeObserver(() => {
      const shorter = el.clientHeight < height;
      height = el.clientHeight;
      const { key, indexOfKey: find } = keepRef.current;
      if (!shorter || key == null || !find) return;
      const index = find(key);
      if (index !== undefined) virtualizer.scrollToIndex(index, { align: 'auto' });
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [virtualizer]);
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

  const moveFocus = useCallback(
    (index: number) => {
      setActive(index);
      virtualizer.scrollToIndex(index, { align: 'auto' });
      // The row may not be drawn yet: try now, then after the virtualizer has rendered it.
      if (!focusRow(index))
        requestAnimationFrame(() => requestAnimationFrame(() => focusRow(index)));
    },
    [virtualizer, focusRow],
  );

  // New rows came in under the focus (a live list reorders): follow the row the reader was on,
  // so Enter opens what they chose, not whatever slid into its place.
  useLayoutEffect(() => {
    const key = focusedKey.current;
    if (!roving || !keyAt || !indexOfKey || key == null) return;
    // On a row of the list (the list itself, focused by a resume, follows no row).
    const list = parentRef.current;
    if (!list?.contains(document.activeElement) || document.activeElement === list) return;
    const here = keyAt(active);
    if (here === key || here === undefined) return;
    const moved = indexOfKey(key);
    if (moved === undefined) focusedKey.current = here;
    else moveFocus(moved);
  });

  // A row drawn again as another element (a loading row replaced by its data, a page that came
  // in) takes the focus with it to <body> without a blur: give it back to the row the keyboard is
  // on, so End on a row not yet loaded, or new rows under a held list, do not drop the keyboard.
  useLayoutEffect(() => {
    if (!roving || !keyboardOn.current) return;
    const focused = document.activeElement;
    if (focused != null && focused !== document.body) return;
    focusRow(Math.min(active, Math.max(0, count - 1)));
  });

  // Back to the top is a resume (live again): the keyboard lets the list go too, its row leaving
  // the screen (left on it, the focus would fall to <body> and the list stay held by it). The
  // focus goes to the list itself, which holds nothing: an arrow takes a row again, Escape still
  // closes what is open, and Tab goes on from the list, not from the top of the page.
  const [toTopSeen, setToTopSeen] = useState(toTop);
  if (toTop !== toTopSeen) {
    setToTopSeen(toTop);
    setActive(0);
  }
  useEffect(() => {
    if (toTop === undefined) return;
    virtualizer.scrollToOffset(0);
    const list = parentRef.current;
    focusedKey.current = null;
    if (list?.contains(document.activeElement) && document.activeElement !== list)
      list.focus({ preventScroll: true });
    setKeyboard(false);
  }, [toTop, virtualizer, setKeyboard]);

  useEffect(() => {
    if (reveal) virtualizer.scrollToIndex(reveal.index, { align: 'center' });
  }, [reveal, virtualizer]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (!roving) return;
    // Escape on a row (closing what is open) is the keyboard taking that row: the list holds on.
    if (e.key === 'Escape' && (e.target as HTMLElement).closest('[data-index]')) setKeyboard(true);
    if (hashesAt && isCopyKey(e) && !hasTextSelection()) {
      const hashes = hashesAt(active);
      if (!hashes?.length) return;
      e.preventDefault();
      void copyHashes(hashes);
      return;
    }
    const page = Math.max(1, Math.floor((parentRef.current?.clientHeight ?? 0) / rowHeight) - 1);
    const next = nextRowIndex(e.key, active, count, page);
    if (next == null) return;
    e.preventDefault();
    setKeyboard(true);
    focusedKey.current = keyAt?.(next) ?? null;
    moveFocus(next);
  };
  const onFocus = (e: FocusEvent) => {
    const target = e.target as HTMLElement;
    const idx = target.closest<HTMLElement>('[data-index]')?.dataset.index;
    if (!roving || idx == null) return;
    setActive(Number(idx));
    focusedKey.current = keyAt?.(Number(idx)) ?? null;
    // The browser's own test of a keyboard focus (Tab, or focus handed on after a key): a row
    // the mouse clicked is held by being open instead.
    if (target.matches(':focus-visible')) setKeyboard(true);
  };
  const onBlur = (e: FocusEvent) => {
    const to = e.relatedTarget as Element | null;
    // A modal dialog over the list (the shortcuts, About) hands the focus back to this row when
    // it closes: the list stays held meanwhile, so the row is still the one the reader was on.
    if (to?.closest('dialog[open]')) return;
    if (!to || !parentRef.current?.contains(to)) setKeyboard(false);
  };
  const onScroll = () => {
    const top = (parentRef.current?.scrollTop ?? 0) < rowHeight / 2;
    if (top === atTop.current) return;
    atTop.current = top;
    onAtTopChange?.(top);
  };
  const tabStop = Math.min(active, Math.max(0, count - 1));

  return (
    <div
      ref={parentRef}
      className="vscroll"
      role="rowgroup"
      aria-label={label}
      data-testid={testId}
      // Focusable by script only (a resume hands it the focus), never a Tab stop of its own.
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onFocus={onFocus}
      onBlur={onBlur}
      onPointerDown={() => setKeyboard(false)}
      onPointerEnter={() => onPointerOverChange?.(true)}
      // Rows that came under a pointer already there (a view just opened) hold once it moves.
      onPointerMove={() => onPointerOverChange?.(true)}
      onPointerLeave={() => onPointerOverChange?.(false)}
      onScroll={onScroll}
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

/** Ctrl+C, or Cmd+C on a Mac. */
function isCopyKey(e: KeyboardEvent): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'c';
}

/** Text the reader selected is what Ctrl+C copies, as anywhere else. */
function hasTextSelection(): boolean {
  return (window.getSelection()?.toString() ?? '') !== '';
}
