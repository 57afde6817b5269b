// `kvscope analyze` on a terminal: how much of the file is read, as one line on stderr rewritten
// in place and wiped when reading ends, so the report that follows starts on a clean line. Not on
// a pipe or a file: a log of a scripted run gets the report and the problems only.

import { formatBytes } from '../../shared/byte-size';

/** A progress line on a terminal; update takes the fraction of the file's bytes read. */
export interface TerminalProgress {
  update(fraction: number): void;
  done(): void;
}

/** Progress of reading `file` (of totalBytes) on out, or null when out is not a terminal. */
export function terminalProgress(
  out: NodeJS.WriteStream,
  file: string,
  totalBytes: number,
): TerminalProgress | null {
  if (!out.isTTY) return null;
  let shown = -1;
  let drawn = false;
  return {
    update(fraction) {
      // One redraw per whole percent: a 1 GB file would otherwise write thousands of lines.
      const pct = Math.min(100, Math.floor(fraction * 100));
      if (pct === shown) return;
      shown = pct;
      drawn = true;
      const read = formatBytes(Math.round(fraction * totalBytes));
      out.write(`\r\x1b[K# reading ${file}: ${pct}% (${read} of ${formatBytes(totalBytes)})`);
    },
    done() {
      if (drawn) out.write('\r\x1b[K');
    },
  };
}
