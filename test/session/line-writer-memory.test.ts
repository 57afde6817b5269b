// The recording's writer keeps nothing per flush: a live run flushes several times a second for
// hours, so a few hundred bytes kept per flush (a Promise.race against a promise that only settles
// on failure, as it once was) grow without bound. Measured on the heap after a full collection.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { GzipLineWriter } from '../../electron/session/gzip-line-writer';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-writer-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the gzip line writer', () => {
  it('keeps no memory per sync flush, however many it makes', async () => {
    const writer = new GzipLineWriter(path.join(dir, 'flushes.jsonl.gz'), {
      flushIntervalMs: 250,
      maxQueueBytes: 1 << 20,
    });
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i++) {
        writer.write('{"type":"BlockRemoved"}');
        await writer.flush();
      }
    };
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    await rounds(2000);
    const before = heap();
    const n = 20_000;
    await rounds(n);
    const perFlush = (heap() - before) / n;
    await writer.close();
    expect(writer.stats().durable).toBe(2000 + n);
    // 300 bytes per flush when each wait left a reaction behind; nothing but noise now.
    expect(perFlush).toBeLessThan(50);
  });
});
