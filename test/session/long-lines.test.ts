// Very long lines: linear work however long the line, and a line over the limit skipped.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { MAX_LINE_BYTES, readLines } from '../../electron/session/line-reader';
import { readSession } from '../../electron/session/read-session';
import { importSeedCapture } from '../../electron/session/seed-capture';
import { stored } from '../model/helpers';
import { hashTexts } from '../../shared/hash-list';

const MiB = 1024 * 1024;
const header = JSON.stringify(makeHeader('t', new Date(0), []));
const event = (ts: number, h: string) => encodeRecord({ k: 'event', rec: stored('a', ts, [h]) });

/** A stream of `total` bytes of `fill` in 64 KiB chunks, as a file or a socket delivers them. */
function chunked(prefix: string, total: number, fill: number, suffix: string): Readable {
  const chunk = Buffer.alloc(64 * 1024, fill);
  return Readable.from(
    (function* () {
      yield Buffer.from(prefix);
      for (let left = total; left > 0; left -= chunk.length)
        yield left >= chunk.length ? chunk : chunk.subarray(0, left);
      yield Buffer.from(suffix);
    })(),
  );
}

describe('line reader work', () => {
  it.each([8, 16, 32])(
    'reads a %d MB line scanning each byte once and copying it once',
    async (mb) => {
      const n = mb * MiB;
      const lengths: number[] = [];
      const end = await readLines(chunked('', n, 0x78, '\n{"after":1}\n'), (line) =>
        lengths.push(line.length),
      );
      expect(lengths).toEqual([n, 11]);
      // Linear: the work is the input's size, not its square (the old reader re-split the whole
      // held line for every 64 KiB chunk: 8 MB cost 128 passes over it, 32 MB 512).
      const bytes = n + 13;
      expect(end.work.scanned).toBe(bytes);
      expect(end.work.copied).toBe(n);
    },
  );

  it('reads the same long line from gzip with the same work', async () => {
    const n = 8 * MiB;
    const text = Buffer.concat([Buffer.alloc(n, 0x79), Buffer.from('\nlast\n')]);
    const lengths: number[] = [];
    const end = await readLines(gzipSync(text), (line) => lengths.push(line.length));
    expect(lengths).toEqual([n, 4]);
    expect(end.work.scanned).toBe(text.length);
    expect(end.work.copied).toBe(n);
  });

  it('keeps a multi-byte character split across chunks whole', async () => {
    const s = 'é'.repeat(100_000) + '\n';
    const buf = Buffer.from(s);
    const parts = [buf.subarray(0, 65_537), buf.subarray(65_537)];
    const lines: string[] = [];
    await readLines(Readable.from(parts), (l) => lines.push(l));
    expect(lines).toEqual(['é'.repeat(100_000)]);
  });
});

describe('a line over the limit', () => {
  it('is skipped with a problem line and the lines after it are kept (session)', async () => {
    const over = MAX_LINE_BYTES + MiB;
    const input = chunked(
      `${header}\n${event(1, '1')}\n`,
      over,
      0x7a,
      `\n${event(2, '2')}\n${event(3, '3')}\n`,
    );
    const hashes: string[] = [];
    const r = await readSession(input, (rec) => {
      if (rec.k === 'event' && rec.rec.event.type === 'BlockStored')
        hashes.push(...hashTexts(rec.rec.event.block_hashes));
    });
    expect(hashes).toEqual(['1', '2', '3']);
    expect(r.counts.skippedLines).toBe(1);
    expect(r.problems).toEqual(['line 3: 65 MiB long, over the 64 MiB line limit (skipped)']);
  });

  it('is skipped in a capture too, and held as a count, never as bytes', async () => {
    const line = (ts: number) =>
      `{"ts":${ts},"type":"BlockRemoved","block_hashes":[18446744073709551615]}`;
    const end = await readLines(
      chunked(`${line(1)}\n`, 3 * MiB, 0x20, `x\n${line(2)}\n`),
      () => undefined,
      { maxLineBytes: MiB, onLongLine: () => undefined },
    );
    expect(end.longLines).toBe(1);
    // The skipped line was counted as it went: nothing of it was joined.
    expect(end.work.copied).toBe(0);
    let events = 0;
    const r = await importSeedCapture(
      chunked(`${line(1)}\n`, MAX_LINE_BYTES + 1, 0x20, `\n${line(2)}\n`),
      (rec) => {
        if (rec.k === 'event') events += 1;
      },
    );
    expect(events).toBe(2);
    expect(r.skippedLines).toBe(1);
    expect(r.problems[0]).toBe('line 2: 64 MiB long, over the 64 MiB line limit (skipped)');
  });
});
