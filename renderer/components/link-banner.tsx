import { useSyncExternalStore } from 'react';
import { getLinkState, subscribeLinkState } from '../bridge/connection-status';

/** Says so when the browser has lost its WebSocket to `kvscope serve` (reconnecting). */
export function LinkBanner() {
  const state = useSyncExternalStore(subscribeLinkState, getLinkState);
  if (state !== 'down') return null;
  return (
    <div className="banner banner-error" role="status" data-testid="link-down">
      <span>
        Disconnected from kvscope serve: reconnecting… (is <code>kvscope serve</code> still
        running?)
      </span>
    </div>
  );
}
