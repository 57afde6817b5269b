// The recording's writer under a disk that cannot keep up: a FIFO whose reader the test holds
// still stands in for a stalled disk (real file-system writes that block), /dev/full for a full one.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GzipLineWriter } from '../../electron/session/gzip-line-writer';
import { readSession } from '../../electron/session/read-session';
import { Recording } from '../../electron/session/recording';
import { stored } from '../model/helpers';
import { waitFor } from '../support/wait-for';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-backpressure-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Lines that gzip cannot shrink much, so a stalled file fills gzip's buffers quickly. */
function noisyLine(i: number): string {
  let s = `{"i":${i},"x":"`;
  for (let k = 0; k < 12; k++) s += Math.random().toString(36).slice(2);
  return `${s}"}`;
}

const tick = () => new Promise((r) => setImmediate(r));

describe('recording backpressure', () => {
  it('holds at most its queue bound while the disk is stalled, counts what it refuses, then writes every accepted line in order', async () => {
    const fifo = join(dir, 'stalled.gz');
    execFileSync('mkfifo', [fifo]);
    // The reader opens the FIFO but reads nothing yet: the writer's file writes block.
    const reader = createReadStream(fifo);
    reader.pause();
    const maxQueueBytes = 256 * 1024;
    const w = new GzipLineWriter(fifo, { flushIntervalMs: 20, maxQueueBytes });
    const accepted: string[] = [];
    let refused = 0;
    for (let round = 0; round < 400 && refused === 0; round++) {
      for (let i = 0; i < 100; i++) {
        const line = noisyLine(round * 100 + i);
        if (w.write(line)) accepted.push(line);
        else refused++;
      }
      expect(w.stats().queuedBytes).toBeLessThanOrEqual(maxQueueBytes);
      await tick();
    }
    const stalled = w.stats();
    expect(refused).toBeGreaterThan(0);
    expect(stalled.dropped).toBe(refused);
    expect(stalled.accepted).toBe(accepted.length);
    // What is accepted and not durable is what a crash now would lose: it is known, not hidden.
    expect(stalled.accepted - stalled.durable).toBeGreaterThan(0);
    expect(stalled.oldestPendingAt).not.toBeNull();
    // Below the queue, gzip and the file hold at most one write of it and their own small buffers.
    const heldBytes = accepted.slice(stalled.durable).reduce((n, l) => n + l.length + 1, 0);
    expect(heldBytes).toBeLessThanOrEqual(2 * maxQueueBytes + 1024 * 1024);

    const chunks: Buffer[] = [];
    reader.on('data', (c) => chunks.push(c as Buffer));
    reader.resume();
    const ended = new Promise<void>((r) => reader.once('end', () => r()));
    await w.flush();
    expect(w.stats().durable).toBe(accepted.length);
    expect(w.stats().oldestPendingAt).toBeNull();
    await w.close();
    await ended;
    const lines = gunzipSync(Buffer.concat(chunks)).toString().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(accepted);
  });

  it('a copy of the file taken at any moment holds everything except what the status called behind', async () => {
    const rec = await Recording.create({ dir, app: 't', flushIntervalMs: 20 });
    let appended = 0;
    const checks: { appended: number; behind: number; inFile: number }[] = [];
    for (let round = 0; round < 60; round++) {
      const batch = [];
      for (let i = 0; i < 50; i++)
        batch.push(stored('a', round + i / 100, [`${round + 1}${i}`, '7']));
      rec.record({
        k: 'batch',
        meta: { source: 'a', seq: round, ts: round, dpRank: 0 },
        events: batch,
      });
      appended += batch.length;
      if (round % 10 === 9) {
        const status = rec.status();
        // What a kill -9 right now would leave: the bytes the file holds.
        const bytes = await readFile(rec.path);
        const read = await readSession(bytes, () => undefined);
        checks.push({ appended, behind: status.behindRecords, inFile: read.counts.events });
      }
      await tick();
    }
    await rec.close();
    expect(checks).toHaveLength(6);
    for (const c of checks) expect(c.inFile).toBeGreaterThanOrEqual(c.appended - c.behind);
    const all = await readSession(rec.path, () => undefined);
    expect(all.counts.events).toBe(appended);
    expect(rec.status()).toMatchObject({ behindRecords: 0, droppedRecords: 0, behind: false });
  });

  it.runIf(existsSync('/dev/full'))(
    'on a full disk says why, counts every record it could not write, and never hangs a flush',
    async () => {
      const w = new GzipLineWriter('/dev/full', { flushIntervalMs: 10, maxQueueBytes: 1 << 20 });
      for (let i = 0; i < 2000; i++) w.write(noisyLine(i));
      await w.flush();
      await waitFor(() => w.error !== null, 'the write error');
      expect(w.error).toMatch(/ENOSPC|no space/i);
      expect(w.write('{"late":1}')).toBe(false);
      const s = w.stats();
      expect(s.dropped).toBe(2001 - s.durable);
      expect(s.accepted - s.durable).toBe(0);
      await w.close();
    },
  );
});
