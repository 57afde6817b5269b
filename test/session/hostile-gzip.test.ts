// Hostile compressed files: garbage after the gzip data, gzip bombs. Every file is made here.
import { Readable } from 'node:stream';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync, constants, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { problemCount } from '../../shared/problem-list';
import { MIN_BOMB_BYTES, readLines } from '../../electron/session/line-reader';
import { loadIntoModel } from '../../electron/session/load';
import { readSession } from '../../electron/session/read-session';
import { importSeedCapture } from '../../electron/session/seed-capture';
import { stored } from '../model/helpers';

/** A session's text: a header and n one-block store events. */
function sessionText(n: number, first = 0): string {
  const lines = first === 0 ? [JSON.stringify(makeHeader('t', new Date(0), []))] : [];
  for (let i = first; i < first + n; i += 1)
    lines.push(encodeRecord({ k: 'event', rec: stored('a', 100 + i / 10, [`${i + 1}`]) }));
  return lines.join('\n') + '\n';
}

/**
 * A gzip member that inflates to `mib` MiB of `byte` from ~1 KB per MiB: one MiB of it deflated
 * with a sync flush, repeated (its back-references only reach the same bytes), then a final empty
 * block. 4,096 repeats make ~4 MB that inflate to 4 GiB, built in milliseconds.
 */
function bomb(mib: number, byte: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1024 * 1024, byte), {
    finishFlush: constants.Z_SYNC_FLUSH,
  });
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const parts = [header];
  for (let i = 0; i < mib; i += 1) parts.push(block);
  parts.push(Buffer.from([0x03, 0x00]), Buffer.alloc(8));
  return Buffer.concat(parts);
}

async function read(input: Buffer) {
  let events = 0;
  const r = await readSession(input, (rec) => {
    if (rec.k === 'event') events += 1;
  });
  return { ...r, events };
}

describe('garbage after the gzip data', () => {
  it.each([10, 11, 1024])(
    'keeps all 883 events when %d bytes of garbage follow the member, and reports the tail',
    async (n) => {
      const garbage = Buffer.alloc(n, 0x41);
      const r = await read(Buffer.concat([gzipSync(sessionText(883)), garbage]));
      expect(r.events).toBe(883);
      expect(r.counts.events).toBe(883);
      expect(r.problems).toEqual([
        `${n} bytes after the end of the gzip data are not gzip (ignored): every event before them was read`,
      ]);
    },
  );

  it('keeps 20,000 events over several members (a recording appended to) before the garbage', async () => {
    const file = Buffer.concat([
      gzipSync(sessionText(12_000)),
      gzipSync(sessionText(8_000, 12_000)),
      Buffer.from('trailing junk!'),
    ]);
    const r = await read(file);
    expect(r.events).toBe(20_000);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^14 bytes after the end of the gzip data/);
  });

  it('finds each member boundary however the bytes are chunked', async () => {
    const file = Buffer.concat([
      gzipSync(sessionText(40)),
      gzipSync(sessionText(2, 40)),
      Buffer.from('junk'),
    ]);
    for (const step of [1, 7, 4096]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < file.length; i += step) chunks.push(file.subarray(i, i + step));
      let events = 0;
      const r = await readSession(Readable.from(chunks), (rec) => {
        if (rec.k === 'event') events += 1;
      });
      expect(events).toBe(42);
      expect(r.problems).toEqual([
        '4 bytes after the end of the gzip data are not gzip (ignored): every event before them was read',
      ]);
    }
  });

  it('says a member whose checksum does not match is damaged, keeping its events', async () => {
    const z = Buffer.from(gzipSync(sessionText(30)));
    z[z.length - 8] = (z[z.length - 8] as number) ^ 0xff;
    const r = await read(z);
    expect(r.events).toBe(30);
    expect(r.problems).toEqual([
      'file is damaged (gzip: incorrect data check): read 30 events up to there',
    ]);
  });

  it('lists a damaged member first, ahead of the 20 line problems a screen shows', async () => {
    const bad = Array.from({ length: 25 }, (_, i) => `not json ${i}`).join('\n') + '\n';
    const z = Buffer.from(gzipSync(sessionText(30) + bad));
    z[z.length - 8] = (z[z.length - 8] as number) ^ 0xff;
    const r = await read(z);
    expect(r.events).toBe(30);
    expect(r.problems[0]).toBe(
      'file is damaged (gzip: incorrect data check): read 30 events up to there',
    );
    expect(r.problems.slice(1, 21)).toEqual(
      Array.from({ length: 20 }, (_, i) => `line ${32 + i}: not JSON (skipped)`),
    );
    expect(r.problems.at(-1)).toBe('… and 5 more lines with problems');
    expect(r.problems).toHaveLength(22);
    // 1 damage + 25 bad lines: the count a screen shows.
    expect(problemCount(r.problems)).toBe(26);
  });

  it('ends with the damage when a member holds no valid deflate data (it waited for ever)', async () => {
    const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    // Block type 3 (reserved): zlib fails the data at once and calls no write callback.
    const end = await readLines(
      Buffer.concat([header, Buffer.from([0xff, 0xff, 0xff, 0xff])]),
      () => {
        throw new Error('no line was in it');
      },
    );
    expect(end.damaged).toBe('invalid block type');
    expect(end.lines).toBe(0);
  });

  it('keeps the events of the members before one whose deflate data is corrupt', async () => {
    const bad = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    const r = await read(Buffer.concat([gzipSync(sessionText(40)), bad]));
    expect(r.events).toBe(40);
    expect(r.problems).toEqual([
      'file is damaged (gzip: invalid block type): read 40 events up to there',
    ]);
  });

  it.each([40, 20_000])(
    'keeps the events of a member damaged after %d of them, which zlib dropped with the write it failed on',
    async (n) => {
      // The events' deflate data flushed to a block's end, then a block of the reserved type: the
      // damage comes right after the last event, in the write that holds the end of their data
      // (all of it for 40 events: the file is smaller than a write).
      const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
      const data = deflateRawSync(sessionText(n), { finishFlush: constants.Z_SYNC_FLUSH });
      const damaged = Buffer.concat([header, data, Buffer.alloc(64, 0xff)]);
      const dir = await mkdtemp(path.join(tmpdir(), 'kvscope-damaged-'));
      try {
        const file = path.join(dir, 'damaged.kvscope.jsonl.gz');
        await writeFile(file, damaged);
        for (const input of [damaged, file]) {
          let events = 0;
          const r = await readSession(input, (rec) => {
            if (rec.k === 'event') events += 1;
          });
          // At most the events in the piece of 256 compressed bytes that holds the damage go.
          expect(events).toBeGreaterThan(n - 60);
          expect(events).toBeLessThanOrEqual(n);
          expect(r.problems[0]).toBe(
            `file is damaged (gzip: invalid block type): read ${events} events up to there`,
          );
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('says a gzip damaged before its first line is damaged, not empty', async () => {
    const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    await expect(read(Buffer.concat([header, Buffer.from('garbagegzip')]))).rejects.toThrow(
      /^not a KV Scope session: it is damaged before its first line \(gzip: .+\)$/,
    );
  });

  it('takes zero padding after the member as padding, not a problem', async () => {
    const r = await read(Buffer.concat([gzipSync(sessionText(50)), Buffer.alloc(4096)]));
    expect(r.events).toBe(50);
    expect(r.problems).toEqual([]);
  });

  it('keeps every event of a capture followed by garbage', async () => {
    const lines = Array.from(
      { length: 500 },
      (_, i) =>
        `{"ts":${100 + i},"type":"BlockStored","block_hashes":[${18446744073709551000n + BigInt(i)}],"parent_block_hash":null,"token_ids":[1,2],"block_size":2}`,
    );
    let events = 0;
    const r = await importSeedCapture(
      Buffer.concat([gzipSync(lines.join('\n') + '\n'), Buffer.from('0123456789abcdef')]),
      (rec) => {
        if (rec.k === 'event') events += 1;
      },
    );
    expect(events).toBe(500);
    expect(r.problems).toContain(
      '16 bytes after the end of the gzip data are not gzip (ignored): every event before them was read',
    );
  });
});

describe('gzip bombs', () => {
  it.each([
    ['newlines', 0x0a],
    ['one line of zeros', 0x30],
  ])(
    'stops a 4 MB member inflating to 4 GiB of %s at the limit, keeping the events before it',
    async (_, byte) => {
      const b = bomb(4096, byte);
      expect(b.length).toBeLessThan(5 * 1024 * 1024);
      const file = Buffer.concat([gzipSync(sessionText(3)), b]);
      const r = await read(file);
      expect(r.events).toBe(3);
      expect(r.problems.at(-1)).toMatch(
        /^stopped reading after \d+ MiB decompressed: the file inflates to more than 200 times its size \(a gzip bomb\?\); read 3 events up to there$/,
      );
      // Promptly, as work done: it stopped within a few MiB of the limit, not after 4 GiB.
      const end = await readLines(file, () => undefined);
      expect(end.bombStoppedAt).not.toBeNull();
      expect(end.bombStoppedAt!).toBeLessThan(2 * MIN_BOMB_BYTES);
      expect(end.work.scanned).toBeLessThan(2 * MIN_BOMB_BYTES);
    },
  );

  it('refuses a session whose bomb comes before any event (nothing read), as a cut one is', async () => {
    const file = Buffer.concat([gzipSync(sessionText(0)), bomb(64, 0x30)]);
    await expect(loadIntoModel(file)).rejects.toThrow(
      /^no events could be read; the first problem: stopped reading after \d+ MiB decompressed: .* read 0 events up to there$/,
    );
    // A header alone, with no bomb after it, still opens, empty.
    const empty = await loadIntoModel(gzipSync(sessionText(0)));
    expect(empty.model.kpis()).toMatchObject({ storedBlocks: 0 });
  });

  it.each([
    ['a line of zeros', 0x30],
    ['newlines', 0x0a],
  ])('calls a file that is a bomb from its first byte (%s) a bomb, not empty', async (_, byte) => {
    await expect(read(bomb(4096, byte))).rejects.toThrow(
      /^not a KV Scope session: it inflates to more than 200 times its size \(a gzip bomb\?\): stopped after \d+ MiB, no line read$/,
    );
  });

  it('opens a capture followed by a bomb as a capture, keeping its events', async () => {
    // One line: a second would tell it from a session before the bomb.
    const line = '{"ts":100,"seq":0,"type":"BlockStored","block_hashes":[7],"block_size":2}';
    const opened = await loadIntoModel(Buffer.concat([gzipSync(`${line}\n`), bomb(4096, 0x30)]));
    expect(opened.model.kpis()).toMatchObject({ storedBlocks: 1 });
    expect(opened.problems.at(-1)).toMatch(/\(a gzip bomb\?\); read 1 events up to there$/);
  });

  it('reads a large, ordinarily compressible session whole (the limit is a ratio, not a size)', async () => {
    const text = sessionText(250_000);
    expect(text.length).toBeGreaterThan(MIN_BOMB_BYTES);
    const z = gzipSync(text);
    expect(text.length / z.length).toBeLessThan(50);
    let lines = 0;
    const end = await readLines(z, () => (lines += 1));
    expect(lines).toBe(250_001);
    expect(end.bombStoppedAt).toBeNull();
    expect(end.damaged).toBeNull();
  });
});
