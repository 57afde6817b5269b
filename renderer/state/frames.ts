// The app-wide frame store, fed by the bridge's onUpdate, with flow-control acks.

import { useSyncExternalStore } from 'react';
import { bridge } from '../bridge/bridge';
import { createFrameStore } from './frame-store';
import type { FrameState } from './frame-store';

export const frameStore = createFrameStore();

/** Subscribes the store to the bridge; acks each frame once it is in the store. */
export function startFrames(): () => void {
  return bridge().onUpdate((frame) => {
    frameStore.apply(frame);
    // Ack after this task so React gets to render first; the next frame waits for the ack.
    setTimeout(() => {
      bridge()
        .ackFrame(frame.n)
        .catch(() => undefined);
    }, 0);
  });
}

/** The latest frame state, re-rendering on each frame. */
export function useFrameState(): FrameState {
  return useSyncExternalStore(frameStore.subscribe, frameStore.getState);
}
