// What the progress bar of a file being opened says: the phase, the file, how far. Pure.

import { formatBytes } from './format';

export type FilePhase = 'uploading' | 'reading';

export interface FileProgressText {
  /** "Uploading big.kvscope.jsonl.gz" */
  label: string;
  /** "45% · 16.6 MiB of 37.0 MiB", or just the percentage when the size is unknown. */
  detail: string;
  /** 0..100, whole. */
  percent: number;
}

/** The words of a file's progress; `done` and `total` in bytes when known. */
export function fileProgressText(
  phase: FilePhase,
  name: string,
  fraction: number,
  done: number | null,
  total: number | null,
): FileProgressText {
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  // Floor, not round: 100% only once it is all there.
  const percent = Math.floor(f * 100);
  const verb = phase === 'uploading' ? 'Uploading' : 'Reading';
  const size = done !== null && total ? ` · ${formatBytes(done)} of ${formatBytes(total)}` : '';
  return { label: `${verb} ${name}`, detail: `${percent}%${size}`, percent };
}
