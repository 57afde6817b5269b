// Writing an export: chunk by chunk into a temporary file beside the target, then renamed onto
// it, so a failed export never leaves half a file under the chosen name. The chunks are written
// synchronously so that the model does not change between the pages of one export.

import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

const WRITE_CHUNK = 64 * 1024;

/** Writes every chunk to `target` (atomically); returns the bytes written. */
export function writeExportFile(target: string, chunks: Iterable<string>): number {
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${Date.now()}.part`,
  );
  const fd = openSync(temp, 'w', 0o600);
  let bytes = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = () => {
    bytes += writeSync(fd, pending.join(''));
    pending = [];
    pendingLength = 0;
  };
  try {
    // Many small chunks (one per row) go out in writes of about 64 KiB.
    for (const chunk of chunks) {
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength >= WRITE_CHUNK) flush();
    }
    flush();
    closeSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  renameSync(temp, target);
  return bytes;
}
