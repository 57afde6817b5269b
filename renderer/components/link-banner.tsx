import { useEffect, useState, useSyncExternalStore } from 'react';
import {
  getLinkLost,
  getLinkRefused,
  getLinkState,
  subscribeLinkState,
} from '../bridge/connection-status';
import { formatAge } from '../lib/format';
import { useFrameState } from '../state/frames';

/** The service sends a frame at least every second; this long without one means it is stuck. */
export const FRAME_SILENCE_SEC = 4;

/** Seconds since the last frame when that is long enough to say so, else null. */
export function frameSilence(receivedAt: number, nowMs: number): number | null {
  if (receivedAt === 0) return null;
  const sec = (nowMs - receivedAt) / 1000;
  return sec >= FRAME_SILENCE_SEC ? sec : null;
}

/**
 * Says so when the link to the main side is down (the browser lost its WebSocket), or when no
 * update has come for a while (the process is suspended or too busy): the numbers on screen are
 * then old, however live they look.
 */
export function LinkBanner() {
  const state = useSyncExternalStore(subscribeLinkState, getLinkState);
  const lost = useSyncExternalStore(subscribeLinkState, getLinkLost);
  const refused = useSyncExternalStore(subscribeLinkState, getLinkRefused);
  const { receivedAt } = useFrameState();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (lost !== null && state !== 'open') {
    // The host said why before it went: that, not a bare "disconnected".
    return (
      <div className="banner banner-error" role="alert" data-testid="service-lost">
        <span>
          <code>kvscope serve</code> has stopped: {lost}. This page reconnects by itself once it
          runs again.
        </span>
      </div>
    );
  }
  if (state === 'down' && refused !== null) {
    // It runs, and refuses this page: "still running?" would send the reader the wrong way.
    return (
      <div className="banner banner-error" role="alert" data-testid="link-refused">
        <span>
          <code>kvscope serve</code> runs but refuses this page: {refused}.
        </span>
      </div>
    );
  }
  if (state === 'down') {
    return (
      <div className="banner banner-error" role="status" data-testid="link-down">
        <span>
          Disconnected from kvscope serve: reconnecting… (is <code>kvscope serve</code> still
          running?)
        </span>
      </div>
    );
  }
  const silent = frameSilence(receivedAt, now);
  if (silent === null) return null;
  return (
    <div className="banner banner-error" role="status" data-testid="frames-stalled">
      <span>
        No update from KV Scope since {formatAge(silent)}: it may be suspended or too busy. What is
        on screen is from then.
      </span>
    </div>
  );
}
