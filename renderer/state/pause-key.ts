// Space pauses the view shown: the view with a pause of its own (Chains, Events) hands it here
// while it is on screen; the App calls it.

import { useEffect, useRef } from 'react';

let current: (() => void) | null = null;

/** While mounted, Space runs `toggle` (the latest one given). */
export function usePauseKey(toggle: () => void): void {
  const latest = useRef(toggle);
  useEffect(() => {
    latest.current = toggle;
  });
  useEffect(() => {
    const run = () => latest.current();
    current = run;
    return () => {
      if (current === run) current = null;
    };
  }, []);
}

/** Runs the pause of the view shown; false when it has none. */
export function togglePauseOfView(): boolean {
  if (!current) return false;
  current();
  return true;
}
