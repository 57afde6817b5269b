// The renderer's view of the latest UpdateFrame: a small external store read with
// useSyncExternalStore. A new epoch (a session opened, back to live) resets what depends on it.

import type { UpdateFrame } from '../../shared/api-types';
import { sourceNameMap, type SourceNames } from '../lib/source-names';

export interface FrameState {
  frame: UpdateFrame | null;
  /** The epoch of the current view; -1 before the first frame. */
  epoch: number;
  /** Bumps on every epoch change: views key on it to drop their local state. */
  resets: number;
  /** Frames received in this epoch. */
  received: number;
  /** Wall-clock ms when the latest frame arrived (for "last message 3 s ago"). */
  receivedAt: number;
  /** Every source name seen in a frame, kept after the source is removed (its figures stay). */
  names: SourceNames;
}

export const initialFrameState: FrameState = {
  frame: null,
  epoch: -1,
  resets: 0,
  received: 0,
  receivedAt: 0,
  names: new Map(),
};

/**
 * The names known so far with the frame's added, the view's sources' last (an opened session's
 * names win over a live source's with the same id); the same map when nothing changed.
 */
function withNames(names: SourceNames, frame: UpdateFrame): SourceNames {
  const next = new Map([...sourceNameMap(frame.sources), ...sourceNameMap(frame.view.sources)]);
  let changed = false;
  for (const [id, name] of next) if (names.get(id) !== name) changed = true;
  return changed ? new Map([...names, ...next]) : names;
}

/** Folds one frame into the state; an epoch change starts the view over. */
export function reduceFrame(state: FrameState, frame: UpdateFrame, now = 0): FrameState {
  if (frame.epoch !== state.epoch) {
    return {
      frame,
      epoch: frame.epoch,
      resets: state.frame == null ? state.resets : state.resets + 1,
      received: 1,
      receivedAt: now,
      names: withNames(state.names, frame),
    };
  }
  const names = withNames(state.names, frame);
  return { ...state, frame, received: state.received + 1, receivedAt: now, names };
}

export interface FrameStore {
  getState(): FrameState;
  subscribe(listener: () => void): () => void;
  apply(frame: UpdateFrame): void;
}

/** Creates a store; `apply` replaces the snapshot and notifies subscribers. */
export function createFrameStore(): FrameStore {
  let state = initialFrameState;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    apply(frame) {
      state = reduceFrame(state, frame, Date.now());
      for (const l of [...listeners]) l();
    },
  };
}
