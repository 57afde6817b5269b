// A session or capture path must name a regular file: a folder reads as EISDIR, and a FIFO or a
// device never ends (reading one hangs, or serve never binds its port).

import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

/** What a path is when it is not a regular file ("a folder", "a named pipe (FIFO)"), else null. */
export function notRegularFile(info: Stats): string | null {
  if (info.isFile()) return null;
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The size of the regular file at path; rejects anything else with what it is and what to do. */
export async function regularFileSize(path: string): Promise<number> {
  const info = await stat(path);
  const what = notRegularFile(info);
  if (what !== null) throw notAFile(path, what);
  return info.size;
}

/** The error for a path that is `what` (notRegularFile's), not a file. */
export function notAFile(path: string, what: string): Error {
  return new Error(`${path} is ${what}, not a file: give the path of a session or capture file`);
}
