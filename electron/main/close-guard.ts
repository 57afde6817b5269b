// Closing the window with an unsaved live session asks first: save, quit without saving, or stay.

import type { FileResult } from '../../shared/api-types';

/** What the guard needs from the shell (Electron's window and dialogs, or stand-ins in tests). */
export interface CloseGuardDeps {
  hasUnsaved(): boolean;
  /** The three-way question; returns the index of the button chosen. */
  ask(): number;
  saveAs(): Promise<FileResult>;
  /** Closes the window for real (the guard lets it through). */
  close(): void;
  showError(text: string): void;
  log(line: string): void;
}

export const CLOSE_CHOICES = ['Save Session As...', 'Quit Without Saving', 'Cancel'] as const;

/**
 * A window 'close' handler: returns true when the close may go ahead now. A Save As that is
 * cancelled or fails keeps the window open (a failure says why); one that succeeds closes it.
 */
export function closeGuard(deps: CloseGuardDeps): () => boolean {
  let letThrough = false;
  return () => {
    if (letThrough || !deps.hasUnsaved()) return true;
    const choice = deps.ask();
    if (choice === 1) return true;
    if (choice === 0) {
      deps.saveAs().then(
        (result) => {
          if (result.status === 'done') {
            letThrough = true;
            deps.close();
          } else if (result.status === 'failed') {
            deps.showError(`The session was not saved: ${result.error}`);
          }
        },
        (err: unknown) => {
          deps.log(`save on close failed: ${String(err)}`);
          deps.showError(err instanceof Error ? err.message : String(err));
        },
      );
    }
    return false;
  };
}
