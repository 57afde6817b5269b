// Thrash re-stores for the window the Insights show: the report counts them for each of
// THRASH_WINDOWS_S side by side, so the tile and the panel follow a switch without a replay.

import type { AnalysisReport, RestoreSeries } from '../../shared/analysis-report';

/** Thrash re-stores within windowS seconds of their eviction (the report's own window: its total). */
export function thrashAtWindow(r: AnalysisReport, windowS: number): number {
  if (windowS === r.thrashWindowS) return r.totals.thrashRestores;
  return r.thrashByWindow.find((w) => w.windowS === windowS)?.thrashRestores ?? 0;
}

/** The windows a user may pick: the report's own and those counted beside it, ascending. */
export function thrashWindows(r: AnalysisReport): number[] {
  return [...new Set([r.thrashWindowS, ...r.thrashByWindow.map((w) => w.windowS)])].sort(
    (a, b) => a - b,
  );
}

/** The series' thrash re-stores per bin within windowS (ownWindowS: the report's own window). */
export function thrashSeriesAtWindow(
  s: RestoreSeries,
  ownWindowS: number,
  windowS: number,
): number[] {
  if (windowS === ownWindowS) return s.thrashRestores;
  return s.thrashByWindow.find((w) => w.windowS === windowS)?.thrashRestores ?? [];
}

/** Where the window picked is kept across reloads, as the theme is. */
const PICK_KEY = 'kvscope.thrashWindowS';

/** The window picked last, null when none was (or storage cannot be read). */
export function storedThrashPick(): number | null {
  try {
    const w = Number(window.localStorage.getItem(PICK_KEY));
    return Number.isFinite(w) && w > 0 ? w : null;
  } catch {
    return null;
  }
}

/** Keeps the window picked for the next load. */
export function storeThrashPick(windowS: number): void {
  try {
    window.localStorage.setItem(PICK_KEY, String(windowS));
  } catch {
    // Storage may be unavailable (private mode): the pick still holds for this page.
  }
}
