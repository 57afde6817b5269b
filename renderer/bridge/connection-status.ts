// Whether the renderer is connected to its main side. Under Electron IPC it always is; in the
// browser the WebSocket bridge reports here so the UI can say when it is down.

export type LinkState = 'ipc' | 'connecting' | 'open' | 'down';

let state: LinkState = 'ipc';
/** Why the service behind the link ended, as its host said before the link went down. */
let lost: string | null = null;
/** Why serve, running, refuses this page's socket (a token of an earlier start), or null. */
let refused: string | null = null;
const listeners = new Set<() => void>();

/** The current link state. */
export function getLinkState(): LinkState {
  return state;
}

/** Why the service ended (what to do included), or null: kept until the link is open again. */
export function getLinkLost(): string | null {
  return lost;
}

/** Why serve refuses this page, or null: kept until the link is open again. */
export function getLinkRefused(): string | null {
  return refused;
}

/** Sets the link state and tells subscribers; an open link forgets why the last one ended. */
export function setLinkState(next: LinkState): void {
  if (next === state) return;
  state = next;
  if (next === 'open') {
    lost = null;
    refused = null;
  }
  notify();
}

/** Serve answered that it refuses this page (reason), or that it does not (null). */
export function setLinkRefused(reason: string | null): void {
  if (reason === refused || state === 'open') return;
  refused = reason;
  notify();
}

/** The host said its service ended, and why. */
export function setLinkLost(reason: string): void {
  lost = reason;
  notify();
}

function notify(): void {
  for (const l of [...listeners]) l();
}

/** Subscribes to link state changes (useSyncExternalStore shape). */
export function subscribeLinkState(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
