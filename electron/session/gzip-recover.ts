// The lines before a damaged gzip member's damage that zlib dropped. zlib hands on nothing of the
// write it fails on (up to a slice of compressed bytes, tens of KB of lines), so a file damaged
// near its start read as empty. Where the input can be read again (a file, bytes in memory), the
// member is inflated again from its start, the failed write a few bytes at a time, and what comes
// out past what was handed on before is handed on now: the lines up to a few hundred bytes before
// the damage. A stream (stdin) cannot be read again, and keeps what it had.

import { createReadStream } from 'node:fs';
import { constants, createInflateRaw, type InflateRaw } from 'node:zlib';
import type { DamagedMember } from './gzip-members';

/** Compressed bytes per write within the failed one: what is lost before the damage at most. */
const PIECE = 256;

/**
 * Inflates the damaged member of input again and hands onData its output past `at.handedOn`, up to
 * the damage or maxBytes.
 */
export async function recoverBeforeDamage(
  input: string | Uint8Array,
  at: DamagedMember,
  maxBytes: number,
  onData: (chunk: Buffer) => void,
): Promise<void> {
  const inf = createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
  // Each write listens for its own failure; this one keeps a late error from being unhandled.
  inf.on('error', () => undefined);
  let out = 0;
  let handed = 0;
  inf.on('data', (c: Buffer) => {
    const skip = Math.max(0, at.handedOn - out);
    out += c.length;
    if (skip >= c.length || handed >= maxBytes) return;
    const part = c.subarray(skip, Math.min(c.length, skip + maxBytes - handed));
    handed += part.length;
    onData(part);
  });
  try {
    // Up to the failed write the member inflated before: in large writes.
    if (at.writeAt > at.bodyAt) {
      for await (const chunk of read(input, at.bodyAt, at.writeAt))
        if (!(await write(inf, chunk as Buffer))) return;
    }
    const failed = await readAll(input, at.writeAt, at.writeAt + at.writeBytes);
    for (let i = 0; i < failed.length && handed < maxBytes; i += PIECE)
      if (!(await write(inf, failed.subarray(i, i + PIECE)))) return;
  } finally {
    inf.destroy();
  }
}

/** Writes chunk; false when zlib found it corrupt (it calls no write callback then). */
function write(inf: InflateRaw, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const onError = (): void => resolve(false);
    inf.once('error', onError);
    inf.write(chunk, (e) => {
      inf.off('error', onError);
      resolve(!e);
    });
  });
}

/** Bytes from .. to - 1 of input, as chunks. */
function read(input: string | Uint8Array, from: number, to: number): AsyncIterable<unknown> {
  if (typeof input === 'string') return createReadStream(input, { start: from, end: to - 1 });
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return (async function* () {
    for (let at = from; at < to; at += 1 << 20)
      yield bytes.subarray(at, Math.min(to, at + (1 << 20)));
  })();
}

/** Bytes from .. to - 1 of input, at most a slice of GzipMembers (64 KB), at once. */
async function readAll(input: string | Uint8Array, from: number, to: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of read(input, from, to)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
