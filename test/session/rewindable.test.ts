// A pipe read as a session first and, when it is none, from its start again as a capture
// (`kvscope analyze -`): nothing is lost or read twice, whatever its chunks and however far the
// first read went.
import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { IngestRecord } from '../../shared/records';
import { replayFile } from '../../electron/session/load';
import { Rewindable } from '../../electron/session/rewindable';
import { LEGACY_INT } from '../support/fixture-frames';

/** bytes as a stream of chunks of `size` bytes. */
const chunked = (bytes: Buffer, size: number): Readable => {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return Readable.from(parts);
};

const text = async (r: Readable): Promise<string> => {
  let out = '';
  for await (const c of r) out += (c as Buffer).toString();
  return out;
};

/** What replayFile delivers, as JSON lines, and its result's figures. */
async function replayed(input: Buffer | Readable): Promise<string> {
  const seen: IngestRecord[] = [];
  const r = await replayFile(input, (rec) => seen.push(rec));
  return JSON.stringify({ seen, kind: r.kind, events: r.events, problems: r.problems });
}

describe('Rewindable', () => {
  it('reads from the start again: what the first read took, then the rest, each byte once', async () => {
    const source = chunked(Buffer.from('abcdefghijklmnopqrstuvwxyz'), 3);
    const rw = new Rewindable(source, 1024);
    // The first read stops after two chunks (a first line that is no header).
    const first = rw.first();
    let taken = '';
    for await (const c of first) {
      taken += (c as Buffer).toString();
      if (taken.length >= 6) break;
    }
    expect(taken).toBe('abcdef');
    expect(await text(rw.again())).toBe('abcdefghijklmnopqrstuvwxyz');
  });

  it('keeps a chunk the first read asked for when it stopped before taking it', async () => {
    // The source hands its second chunk only after the first read was destroyed.
    const source = new PassThrough();
    const rw = new Rewindable(source, 1024);
    const first = rw.first();
    source.write('one\n');
    const it = first[Symbol.asyncIterator]();
    expect(((await it.next()).value as Buffer).toString()).toBe('one\n');
    // The wrapper reads ahead: its next read from the source is in flight now.
    first.destroy();
    const again = text(rw.again());
    source.end('two\n');
    expect(await again).toBe('one\ntwo\n');
  });

  it('cannot rewind past what it keeps, and says so', async () => {
    const rw = new Rewindable(chunked(Buffer.alloc(100, 0x61), 10), 25);
    expect(await text(rw.first())).toHaveLength(100);
    expect(() => rw.again()).toThrow(/first line is past 25 bytes: .*save it to a file/);
  });
});

describe('replayFile of a stream of either kind', () => {
  const capture = readFileSync(LEGACY_INT.truth);

  it('reads a capture stream as it reads the same bytes, plain or gzip, in any chunks', async () => {
    const expected = await replayed(capture);
    expect(JSON.parse(expected)).toMatchObject({ kind: 'capture', events: 669 });
    for (const bytes of [capture, gzipSync(capture)])
      for (const size of [1, 7, 4096, bytes.length])
        expect(await replayed(chunked(bytes, size))).toBe(expected);
  });
});
