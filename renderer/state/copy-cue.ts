// The short "copied" cue: one app-wide message that the copy buttons and Ctrl+C on a row set, and
// the toast shows for a moment.

import { useSyncExternalStore } from 'react';
import { copyText } from '../lib/clipboard';
import { ellipsizeMiddle, plural } from '../lib/format';

export interface CopyCue {
  text: string;
  ok: boolean;
  /** Changes with every copy, so the same text again restarts the timer. */
  n: number;
}

const SHOWN_MS = 1600;
let cue: CopyCue | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

function publish(next: CopyCue | null): void {
  cue = next;
  for (const l of [...listeners]) l();
}

/** Copies block hashes (one per line) and says so in the cue. */
export async function copyHashes(hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  const ok = await copyText(hashes.join('\n'));
  const what =
    hashes.length === 1
      ? ellipsizeMiddle(hashes[0] ?? '', 24)
      : plural(hashes.length, 'hash', 'hashes');
  const text = ok ? `Copied ${what}` : 'Could not copy: the clipboard was refused';
  publish({ text, ok, n: (cue?.n ?? 0) + 1 });
  clearTimeout(timer);
  timer = setTimeout(() => publish(null), SHOWN_MS);
}

/** The cue shown now, or null. */
export function useCopyCue(): CopyCue | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => cue,
  );
}
