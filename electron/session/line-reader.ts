// Streaming line reader for session and capture files: a path, a Buffer or a stream, gzip or
// plain text (sniffed from the magic bytes). A truncated or corrupt gzip stream still yields every
// line before the damage, and says so, so a crashed recording opens.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

/** What a reader can open. */
export type SessionInput = string | Buffer | Uint8Array | Readable;

/** How reading ended. */
export interface LineReadEnd {
  lines: number;
  /** Set when the compressed stream ended early or was damaged: what the decompressor said. */
  damaged: string | null;
  /** The last line had no newline (a file cut off mid-line). */
  unterminatedLast: boolean;
}

/** Called per non-empty line; last is true for a final line that had no newline. */
export type LineVisitor = (line: string, lineNo: number, last: boolean) => void;

async function open(input: SessionInput): Promise<{ stream: Readable; total: number | null }> {
  if (typeof input === 'string')
    return { stream: createReadStream(input), total: (await stat(input)).size };
  if (input instanceof Readable) return { stream: input, total: null };
  return {
    stream: Readable.from([Buffer.from(input.buffer, input.byteOffset, input.byteLength)]),
    total: input.byteLength,
  };
}

/** Read every line of input, gzip or not, calling visit per line and onProgress with the fraction read. */
export async function readLines(
  input: SessionInput,
  visit: LineVisitor,
  onProgress?: (fraction: number) => void,
  totalBytes?: number,
): Promise<LineReadEnd> {
  const { stream, total: knownTotal } = await open(input);
  const total = totalBytes ?? knownTotal;
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let lineNo = 0;
  let unterminatedLast = false;
  const feed = (chunk: Buffer): void => {
    const text = carry + decoder.write(chunk);
    const parts = text.split('\n');
    carry = parts.pop() ?? '';
    for (const p of parts) {
      lineNo += 1;
      const line = p.endsWith('\r') ? p.slice(0, -1) : p;
      if (line.trim() !== '') visit(line, lineNo, false);
    }
  };
  let gunzip: ReturnType<typeof createGunzip> | null = null;
  let damaged: string | null = null;
  let visitError: unknown = null;
  let gzDone: Promise<void> = Promise.resolve();
  let read = 0;
  let lastReport = 0;
  for await (const raw of stream) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
    if (read === 0 && chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b) {
      const gz = createGunzip();
      gunzip = gz;
      gz.on('data', (c: Buffer) => {
        try {
          if (visitError === null) feed(c);
        } catch (e) {
          visitError = e;
        }
      });
      gzDone = new Promise<void>((resolve) => {
        gz.once('end', resolve);
        gz.once('error', (e: Error) => {
          damaged = e.message;
          resolve();
        });
      });
    }
    read += chunk.length;
    if (gunzip) {
      if (damaged !== null) break;
      if (!gunzip.write(chunk))
        await Promise.race([new Promise((r) => gunzip?.once('drain', r)), gzDone]);
    } else feed(chunk);
    if (visitError !== null) break;
    if (onProgress && total && read - lastReport > total / 200) {
      lastReport = read;
      onProgress(Math.min(1, read / total));
    }
  }
  if (gunzip) {
    if (damaged === null) gunzip.end();
    await gzDone;
  }
  if (visitError !== null) {
    stream.destroy();
    throw visitError;
  }
  const rest = carry + decoder.end();
  if (rest.trim() !== '') {
    lineNo += 1;
    unterminatedLast = true;
    visit(rest.endsWith('\r') ? rest.slice(0, -1) : rest, lineNo, true);
  }
  onProgress?.(1);
  return { lines: lineNo, damaged, unterminatedLast };
}
