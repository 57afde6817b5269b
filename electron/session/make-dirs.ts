// mkdir -p that always returns. Node's own recursive mkdir never does where a folder cannot be
// made in a parent that exists (/proc/nope/x: ENOENT from /proc/nope, then EEXIST from /proc, and
// again): serve hung at start, and `analyze --cache-dir /proc/nope` spun at full CPU.

import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Makes dir and its missing parents, one folder at a time from the nearest one that exists. */
export async function makeDirs(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const existing = await nearestExisting(target);
  const missing = path.relative(existing, target).split(path.sep).filter(Boolean);
  let at = existing;
  for (const name of missing) {
    at = path.join(at, name);
    await mkdir(at).catch((err: NodeJS.ErrnoException) => {
      // Made meanwhile by another process: fine, as mkdir -p.
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/** The nearest of dir and its parents that exists. */
export async function nearestExisting(dir: string): Promise<string> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const exists = await access(at).then(
      () => true,
      () => false,
    );
    if (exists || path.dirname(at) === at) return at;
  }
}
