// How the desktop reports a menu's file action: a failure in an error box, a cancel not at all.

import type { FileResult } from '../../shared/api-types';
import { fileResultNotice } from '../../shared/file-result';

/** What reporting needs from the shell (a stand-in in tests). */
export interface ReportDeps {
  log: (line: string) => void;
  showError: (text: string) => void;
}

/** Waits for a file action and says what it did: errors in a box, successes in the log only. */
export async function reportFileResult(
  result: Promise<FileResult>,
  deps: ReportDeps,
): Promise<void> {
  try {
    const r = await result;
    const notice = fileResultNotice(r);
    deps.log(`file action: ${notice?.text ?? 'cancelled'}`);
    if (notice?.kind === 'error') deps.showError(notice.text);
  } catch (err) {
    deps.log(`file action failed: ${String(err)}`);
    deps.showError(err instanceof Error ? err.message : String(err));
  }
}
