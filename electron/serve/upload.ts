// Receiving an upload: the request body is streamed to a file as it arrives (never held whole in
// memory), and the size limit is enforced while it streams, so a file too large is refused at the
// limit instead of after it has been received in full.

import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';

/** How receiving an upload ended. */
export type UploadOutcome =
  | { kind: 'stored'; bytes: number }
  | { kind: 'too-large'; limit: number }
  | { kind: 'failed'; code: string | null; message: string }
  | { kind: 'aborted' };

/** Streams req's body to `target` (created, never overwritten), at most maxBytes of it. */
export function receiveUpload(
  req: IncomingMessage,
  target: string,
  maxBytes: number,
): Promise<UploadOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.pause();
    return Promise.resolve({ kind: 'too-large', limit: maxBytes });
  }
  return new Promise((resolve) => {
    const file = createWriteStream(target, { flags: 'wx' });
    let size = 0;
    let settled = false;
    const settle = (outcome: UploadOutcome): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (outcome.kind !== 'stored') {
        // Stop reading: the sender meets TCP backpressure until the refusal closes the connection.
        req.pause();
        file.destroy();
      }
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        settle({ kind: 'too-large', limit: maxBytes });
        return;
      }
      if (!file.write(chunk)) {
        req.pause();
        file.once('drain', () => {
          if (!settled) req.resume();
        });
      }
    };
    file.on('error', (err: NodeJS.ErrnoException) => {
      settle({ kind: 'failed', code: err.code ?? null, message: err.message });
    });
    req.on('data', onData);
    req.once('end', () => {
      if (settled) return;
      file.end();
      file.once('finish', () => settle({ kind: 'stored', bytes: size }));
    });
    req.once('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
  });
}
