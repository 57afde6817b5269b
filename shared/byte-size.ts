// Byte counts as people read them, in binary units: the screens and the command line say the same
// "16.6 MiB" for the same file. Pure.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count in B / KiB / MiB / GiB / TiB ("—" for what is not a count). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v >= 100 ? 0 : 1)} ${UNITS[i]}`;
}
