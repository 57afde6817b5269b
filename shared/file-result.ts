// What a file action's result says to the user, built from its fields (never parsed from text).

import type { FileLoad, FileResult } from './api-types';

/**
 * A notice for the result; null for a cancelled dialog (it says nothing). `problemsAt` says where
 * the problems are listed: at the top of the view on the screens (the notices are in the corner
 * below), on the page for serve's terminal.
 */
export function fileResultNotice(
  r: FileResult,
  problemsAt = 'listed at the top of the view',
): { text: string; kind: 'info' | 'error' } | null {
  switch (r.status) {
    case 'cancelled':
      // A load the user stopped says so, and that nothing changed.
      if (r.name === undefined) return null;
      return r.load === 'import'
        ? {
            text: `Import cancelled: ${r.name} was not imported; the view stays as it was`,
            kind: 'info',
          }
        : { text: `Stopped opening ${r.name}: the view stays as it was`, kind: 'info' };
    case 'failed':
      return { text: `could not ${r.action} ${r.name ?? 'the file'}: ${r.error}`, kind: 'error' };
    case 'done': {
      const verb = {
        opened: 'Opened',
        imported: 'Imported',
        saved: 'Saved',
        exported: 'Exported',
        downloading: 'Downloading',
      }[r.action];
      const problems =
        r.problems > 0
          ? ` with ${r.problems} problem${r.problems === 1 ? '' : 's'}: ${problemsAt}`
          : '';
      // Said, so that an open in a second is not mistaken for one that read nothing.
      const restored = r.restored ? ' (as its last open left it)' : '';
      return { text: `${verb} ${r.name}${restored}${problems}`, kind: 'info' };
    }
  }
}

/** A done result. */
export function done(
  action: Extract<FileResult, { status: 'done' }>['action'],
  name: string,
  problems = 0,
  restored = false,
): FileResult {
  return restored
    ? { status: 'done', action, name, problems, restored }
    : { status: 'done', action, name, problems };
}

/** The done result of a file opened or imported (`load`): the notice names which. */
export function loaded(load: FileLoad, name: string, problems = 0, restored = false): FileResult {
  return done(load === 'import' ? 'imported' : 'opened', name, problems, restored);
}

/** A failed result with the error's message. */
export function failed(
  action: Extract<FileResult, { status: 'failed' }>['action'],
  err: unknown,
  name?: string,
): FileResult {
  const error = err instanceof Error ? err.message : String(err);
  return name === undefined
    ? { status: 'failed', action, error }
    : { status: 'failed', action, name, error };
}

export const CANCELLED: FileResult = { status: 'cancelled' };
