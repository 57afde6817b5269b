// Files in transit in the browser mode (an upload being received, a download being sent) live in
// a folder of the data dir, on disk rather than in memory, each under a name of its own.

import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { makeDirs } from '../session/make-dirs';

const NAME = /^(upload|download)-(\d+)-[0-9a-f]+\.tmp$/;

/** The transfer folder of one `kvscope serve`. */
export class TransferDir {
  private constructor(readonly dir: string) {}

  /** Creates `<dataDir>/transfers` and removes what a serve that is gone (a crash) left there. */
  static async open(dataDir: string): Promise<TransferDir> {
    const dir = path.join(dataDir, 'transfers');
    await makeDirs(dir);
    for (const name of await readdir(dir)) {
      const pid = Number(NAME.exec(name)?.[2]);
      if (pid && !alive(pid)) await rm(path.join(dir, name), { force: true });
    }
    return new TransferDir(dir);
  }

  /** A fresh path in the folder: the pid says whose it is, the random part keeps two apart. */
  file(kind: 'upload' | 'download'): string {
    return path.join(this.dir, `${kind}-${process.pid}-${randomBytes(8).toString('hex')}.tmp`);
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
