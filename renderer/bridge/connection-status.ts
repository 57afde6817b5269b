// Whether the renderer is connected to its main side. Under Electron IPC it always is; in the
// browser the WebSocket bridge reports here so the UI can say when it is down.

export type LinkState = 'ipc' | 'connecting' | 'open' | 'down';

let state: LinkState = 'ipc';
const listeners = new Set<() => void>();

/** The current link state. */
export function getLinkState(): LinkState {
  return state;
}

/** Sets the link state and tells subscribers. */
export function setLinkState(next: LinkState): void {
  if (next === state) return;
  state = next;
  for (const l of [...listeners]) l();
}

/** Subscribes to link state changes (useSyncExternalStore shape). */
export function subscribeLinkState(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
