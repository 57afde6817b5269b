import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeDirs, nearestExisting } from '../session/make-dirs';

/** Where `kvscope serve` keeps connections and recordings (the desktop app uses Electron's userData). */
export function defaultDataDir(): string {
  if (process.platform === 'win32' && process.env.APPDATA)
    return path.join(process.env.APPDATA, 'kvscope');
  if (process.platform === 'darwin') {
    return path.join(os.homedir(), 'Library', 'Application Support', 'kvscope');
  }
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'kvscope');
}

/**
 * Creates the data folder when it is missing and checks that it can be written. A folder that
 * cannot be is reported as what it is (read-only), not as the ENOENT a recursive mkdir can give.
 */
export async function ensureWritableDataDir(dir: string): Promise<void> {
  const what = `pass --data-dir with a folder you can write to, or make ${dir} writable`;
  let created: NodeJS.ErrnoException | null = null;
  try {
    await makeDirs(dir);
  } catch (err) {
    created = err as NodeJS.ErrnoException;
  }
  if (created === null && !(await stat(dir)).isDirectory())
    throw new Error(`the data folder ${dir} is a file, not a folder: ${what}`);
  const existing = created ? await nearestExisting(dir) : dir;
  const code = await writable(existing);
  if (code !== null) {
    const where =
      existing === dir
        ? `the data folder ${dir}`
        : `${existing}, where the data folder ${dir} would be made,`;
    throw new Error(`${where} is read-only (${code}): ${what}`);
  }
  if (created)
    throw new Error(`the data folder ${dir} cannot be made (${created.message}): ${what}`);
}

/** Null when `dir` can be written, else the error code that says why not. */
async function writable(dir: string): Promise<string | null> {
  try {
    await access(dir, constants.W_OK);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'EACCES';
  }
}
