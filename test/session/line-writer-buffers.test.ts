// The line writer queues lines as UTF-8 in fixed-size buffers: lines of any size and script come
// back from the file exactly, in order, and the queue bound counts encoded bytes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GzipLineWriter } from '../../electron/session/gzip-line-writer';
import { waitFor } from '../support/wait-for';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-line-buffers-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('line writer buffers', () => {
  it('writes multi-byte lines and lines longer than a buffer exactly, in order', async () => {
    const file = join(dir, 'lines.gz');
    const w = new GzipLineWriter(file, { flushIntervalMs: 20, maxQueueBytes: 8 << 20 });
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`{"i":${i},"name":"ränk ${i} 🚀 名前"}`);
    lines.splice(1500, 0, 'x'.repeat(200_000), `"${'é'.repeat(70_000)}"`);
    for (const l of lines) expect(w.write(l)).toBe(true);
    await w.close();
    const text = gunzipSync(await readFile(file)).toString('utf8');
    expect(text).toBe(lines.map((l) => `${l}\n`).join(''));
    expect(w.stats().durable).toBe(lines.length);
  });

  it('puts lines that fill no buffer in the file within the flush interval, unasked', async () => {
    const file = join(dir, 'interval.gz');
    const w = new GzipLineWriter(file, { flushIntervalMs: 20, maxQueueBytes: 8 << 20 });
    const lines = ['{"a":1}', '{"b":2}', '{"c":3}'];
    for (const l of lines) w.write(l);
    // No flush() and no close(): the interval alone makes them durable, as a crash would find them.
    await waitFor(() => w.stats().durable === lines.length, 'the lines to be durable');
    const cut = gunzipSync(await readFile(file), { finishFlush: constants.Z_SYNC_FLUSH });
    expect(cut.toString('utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
    expect(w.stats().queuedBytes).toBe(0);
    await w.close();
  });

  it('refuses a line whose encoded bytes pass the bound, and keeps taking lines that fit', async () => {
    const file = join(dir, 'bound.gz');
    const w = new GzipLineWriter(file, { flushIntervalMs: 20, maxQueueBytes: 100 });
    // 40 UTF-16 units, 120 bytes of UTF-8: over the bound only once encoded.
    expect(w.write('€'.repeat(40))).toBe(false);
    expect(w.write('a'.repeat(50))).toBe(true);
    expect(w.stats().queuedBytes).toBe(51);
    expect(w.stats().dropped).toBe(1);
    await w.close();
    expect(gunzipSync(await readFile(file)).toString('utf8')).toBe(`${'a'.repeat(50)}\n`);
  });

  it('makes a queue longer than one gzip write durable at flush(), without the interval', async () => {
    const file = join(dir, 'long-queue.gz');
    // An interval that never comes within the test: only flush() itself can end the wait.
    const w = new GzipLineWriter(file, { flushIntervalMs: 3_600_000, maxQueueBytes: 32 << 20 });
    const line = Buffer.from(`${'{"k":"event","seq":1,"block_hashes":[1,2,3]}'.repeat(4)}\n`);
    // 6 MB queued in one turn, three times what one write to gzip takes (WRITE_BYTES).
    const count = Math.ceil((6 << 20) / line.length);
    for (let i = 0; i < count; i++) expect(w.writeBytes(line, 0, line.length, 1)).toBe(true);
    // Before the fix, the first sync flush took the request with it and the queue's tail waited
    // for the interval: this flush() never resolved.
    await w.flush();
    expect(w.stats().durable).toBe(count);
    const cut = gunzipSync(await readFile(file), { finishFlush: constants.Z_SYNC_FLUSH });
    expect(cut.length).toBe(count * line.length);
    await w.close();
  }, 60_000);

  it('writes every line exactly while its buffers are reused, written alone or joined', async () => {
    const file = join(dir, 'reused.gz');
    const w = new GzipLineWriter(file, { flushIntervalMs: 5, maxQueueBytes: 32 << 20 });
    const expected: Buffer[] = [];
    // Bursts of every size: a few lines (one segment goes to gzip alone), then tens of segments
    // joined into one write; each burst's lines differ, so a buffer reused too early shows.
    for (let burst = 0; burst < 60; burst++) {
      const lines = burst % 3 === 0 ? 3 : 200 + 400 * (burst % 7);
      for (let i = 0; i < lines; i++) {
        const line = Buffer.from(
          `{"burst":${burst},"i":${i},"pad":"${'x'.repeat((i * 37) % 500)}"}\n`,
        );
        expect(w.writeBytes(line, 0, line.length, 1)).toBe(true);
        expected.push(line);
      }
      if (burst % 4 === 0) await w.flush();
      else await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await w.close();
    expect(gunzipSync(await readFile(file)).equals(Buffer.concat(expected))).toBe(true);
  }, 60_000);
  it('hands lines to gzip a megabyte at a time, not a buffer at a time', async () => {
    const file = join(dir, 'hand-over.gz');
    // An interval that never comes within the test: only the queued bytes start a gzip write.
    const w = new GzipLineWriter(file, { flushIntervalMs: 60_000, maxQueueBytes: 32 << 20 });
    const line = `{"pad":"${'x'.repeat(245)}"}`; // 256 bytes with its newline
    // Half a megabyte: eight full buffers and more, which went to gzip one at a time before.
    for (let i = 0; i < 2048; i++) w.write(line);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(w.stats().queuedBytes).toBe(2048 * 256);
    // Past a megabyte they go, without the interval.
    for (let i = 0; i < 2048; i++) w.write(line);
    await waitFor(() => w.stats().queuedBytes < 1 << 20, 'the queued lines to go to gzip');
    await w.close();
    expect(gunzipSync(await readFile(file)).length).toBe(4096 * 256);
  });
});
