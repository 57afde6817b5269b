import { useEffect, useRef } from 'react';
import type { KeyboardEvent } from 'react';
import type { ViewName } from '../../shared/api-types';

export const VIEWS: { id: ViewName; label: string }[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'insights', label: 'Insights' },
  { id: 'chains', label: 'Chains' },
  { id: 'events', label: 'Events' },
  { id: 'connections', label: 'Connections' },
];

interface Props {
  view: ViewName;
  onChange(view: ViewName): void;
}

/** The view tabs: a tablist with arrow-key navigation (roving focus). */
export function ViewTabs({ view, onChange }: Props) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  // A tab in focus follows the view however it changed (Ctrl+1..5, the desktop menu, back and
  // forward), as the arrow keys move both: left on the old tab, the next Space pressed it and
  // went back there.
  useEffect(() => {
    const i = VIEWS.findIndex((v) => v.id === view);
    const focused = document.activeElement;
    if (refs.current.some((t) => t === focused)) refs.current[i]?.focus();
  }, [view]);
  const onKeyDown = (e: KeyboardEvent) => {
    const i = VIEWS.findIndex((v) => v.id === view);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % VIEWS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + VIEWS.length) % VIEWS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = VIEWS.length - 1;
    const target = VIEWS[next];
    if (!target) return;
    e.preventDefault();
    onChange(target.id);
  };
  return (
    <div className="tabs" role="tablist" aria-label="Views" onKeyDown={onKeyDown}>
      {VIEWS.map((v, i) => (
        <button
          key={v.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          role="tab"
          id={`tab-${v.id}`}
          data-testid={`tab-${v.id}`}
          aria-selected={v.id === view}
          aria-controls={`panel-${v.id}`}
          tabIndex={v.id === view ? 0 : -1}
          className="tab"
          title={`${v.label} (Ctrl+${i + 1})`}
          onClick={() => onChange(v.id)}
        >
          {v.label}
        </button>
      ))}
    </div>
  );
}
