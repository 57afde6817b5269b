// Writing an export: chunk by chunk into a temporary file beside the target, then renamed onto
// it, so a failed export never leaves half a file under the chosen name. Each write of about
// 64 KiB is awaited, so the service goes on (frames, ingest) while a long export is written.

import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

const WRITE_CHUNK = 64 * 1024;

/** Writes every chunk to `target` (atomically); resolves with the bytes written. */
export async function writeExportFile(target: string, chunks: Iterable<string>): Promise<number> {
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${Date.now()}.part`,
  );
  const file = await open(temp, 'w', 0o600);
  let bytes = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    bytes += (await file.write(pending.join(''))).bytesWritten;
    pending = [];
    pendingLength = 0;
  };
  try {
    // Many small chunks (one per row) go out in writes of about 64 KiB.
    for (const chunk of chunks) {
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength >= WRITE_CHUNK) await flush();
    }
    await flush();
    await file.close();
  } catch (err) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await rename(temp, target);
  return bytes;
}
