// The upload under way in the browser mode (a file sent to `kvscope serve` to be opened), so the
// UI can show it moving from the moment the file is chosen and stop it. One at a time.

export interface UploadState {
  name: string;
  sentBytes: number;
  totalBytes: number;
}

let state: UploadState | null = null;
let abort: (() => void) | null = null;
const listeners = new Set<() => void>();

function publish(next: UploadState | null): void {
  state = next;
  for (const l of [...listeners]) l();
}

/** The upload under way, or null. */
export function getUpload(): UploadState | null {
  return state;
}

/** Subscribes to upload changes (useSyncExternalStore shape). */
export function subscribeUpload(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** An upload starts: `stop` aborts it. */
export function uploadStarted(name: string, totalBytes: number, stop: () => void): void {
  abort = stop;
  publish({ name, sentBytes: 0, totalBytes });
}

/** Bytes sent so far. */
export function uploadProgress(sentBytes: number): void {
  if (state) publish({ ...state, sentBytes });
}

/** The upload has ended (sent, failed or stopped): the server's own progress takes over. */
export function uploadEnded(): void {
  abort = null;
  publish(null);
}

/** Stops the upload under way; true when there was one. */
export function stopUpload(): boolean {
  const stop = abort;
  if (!stop) return false;
  stop();
  return true;
}
