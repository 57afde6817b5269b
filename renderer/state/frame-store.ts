// The renderer's view of the latest UpdateFrame: a small external store read with
// useSyncExternalStore. A new epoch (a session opened, back to live) resets what depends on it.

import type { UpdateFrame } from '../../shared/api-types';
import { sourceNameMap, type SourceNames } from '../lib/source-names';

export interface FrameState {
  frame: UpdateFrame | null;
  /** The epoch of the current view; -1 before the first frame. */
  epoch: number;
  /**
   * Bumps on every epoch change after the first frame: views key on it to drop their local state
   * (the first frame changes no view: what was asked before it was asked of the same one).
   */
  resets: number;
  /** Frames received in this epoch. */
  received: number;
  /** Wall-clock ms when the latest frame arrived (for "last message 3 s ago"). */
  receivedAt: number;
  /** Every live source name seen in a frame, kept after the source is removed (its figures stay). */
  liveNames: SourceNames;
  /**
   * The names the views use: the live ones, and while a file is shown its sources' names over
   * them (an opened session's names win over a live source's with the same id). Back to live,
   * the file's names are gone with it.
   */
  names: SourceNames;
}

export const initialFrameState: FrameState = {
  frame: null,
  epoch: -1,
  resets: 0,
  received: 0,
  receivedAt: 0,
  liveNames: new Map(),
  names: new Map(),
};

/** `names` with `next` over them; the same map when that changes nothing. */
function withNames(names: SourceNames, next: SourceNames): SourceNames {
  let changed = false;
  for (const [id, name] of next) if (names.get(id) !== name) changed = true;
  return changed ? new Map([...names, ...next]) : names;
}

/** The live names and the view's names of a frame, each the previous map while unchanged. */
function namesOf(state: FrameState, frame: UpdateFrame): Pick<FrameState, 'liveNames' | 'names'> {
  const session = frame.view.kind === 'session';
  const live = sourceNameMap(frame.sources);
  const liveNames = withNames(
    state.liveNames,
    session ? live : new Map([...live, ...sourceNameMap(frame.view.sources)]),
  );
  if (!session) return { liveNames, names: liveNames };
  // A file's names sit over the live ones, started again with each view (epoch).
  const base =
    frame.epoch === state.epoch && state.names !== state.liveNames ? state.names : liveNames;
  return {
    liveNames,
    names: withNames(withNames(base, liveNames), sourceNameMap(frame.view.sources)),
  };
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
      ...namesOf(state, frame),
    };
  }
  return {
    ...state,
    frame,
    received: state.received + 1,
    receivedAt: now,
    ...namesOf(state, frame),
  };
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
