// Runs a loader when `tick` changes (a new frame), at most once per interval, never two at once.

import { useCallback, useEffect, useRef } from 'react';
import { createThrottle } from '../lib/throttle';
import type { Throttle } from '../lib/throttle';

/** Calls `load` on mount, when `load` changes, and on each `tick` while enabled; throttled. */
export function useThrottledRefresh(
  load: () => Promise<void>,
  intervalMs: number,
  tick: unknown,
  enabled: boolean,
): () => void {
  const loadRef = useRef(load);
  const throttleRef = useRef<Throttle | null>(null);

  useEffect(() => {
    loadRef.current = load;
  }, [load]);

  useEffect(() => {
    const t = createThrottle(() => loadRef.current(), intervalMs);
    throttleRef.current = t;
    return () => {
      t.cancel();
      throttleRef.current = null;
    };
  }, [intervalMs]);

  // A new `load` is a new question (a filter, a range): it is answered even while disabled
  // (paused, frozen), and at once (the user is waiting); only the ticks wait for `enabled`.
  const lastLoad = useRef<typeof load | null>(null);
  useEffect(() => {
    const changed = lastLoad.current !== load;
    lastLoad.current = load;
    if (enabled || changed) throttleRef.current?.trigger(changed);
  }, [tick, enabled, load]);

  // The caller's own trigger (rows scrolled to) is a question too.
  return useCallback(() => throttleRef.current?.trigger(true), []);
}
