import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileProgress } from '../../shared/api-types';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { KvScopeService } from '../../electron/service/service';
import { stored } from '../model/helpers';
import { waitFor } from '../support/wait-for';

let dir: string;
let service: KvScopeService;
let bytes: Buffer;
const progress: (FileProgress | null)[] = [];

/** A gzip session of n events, each of three pseudo-random 64-bit hashes. */
function session(n: number): Buffer {
  const lines = [JSON.stringify(makeHeader('test', new Date(0), []))];
  let x = 12345n;
  const next = () => (x = (x * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n));
  for (let i = 0; i < n; i++) {
    const rec = stored('s', 1_700_000_000 + i / 100, [next(), next(), next()].map(String));
    lines.push(encodeRecord({ k: 'event', rec: { ...rec, seq: i } }));
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kvscope-open-progress-'));
  service = await KvScopeService.start({
    dataDir: dir,
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 5,
  });
  const sub = service.subscribe({
    send: (frame) => {
      progress.push(frame.view.progress);
      sub.ack(frame.n);
    },
  });
  bytes = session(30_000);
});

afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('opening a file', () => {
  it('reports the bytes read of the total as it goes, from uploaded bytes and from a path', async () => {
    progress.length = 0;
    const done = await service.openSession(bytes, 'big.kvscope.jsonl.gz');
    expect(done.status).toBe('done');
    const seen = progress.filter((p): p is FileProgress => p !== null);
    const between = seen.filter((p) => p.fraction > 0 && p.fraction < 1);
    expect(between.length).toBeGreaterThan(2);
    for (const p of seen) {
      expect(p.name).toBe('big.kvscope.jsonl.gz');
      expect(p.totalBytes).toBe(bytes.length);
      expect(p.bytesRead).toBe(Math.round(p.fraction * bytes.length));
    }
    const file = path.join(dir, 'on-disk.kvscope.jsonl.gz');
    await writeFile(file, bytes);
    progress.length = 0;
    expect((await service.openSession(file, 'on-disk')).status).toBe('done');
    expect(progress.some((p) => p !== null && p.totalBytes === bytes.length)).toBe(true);
    service.backToLive();
  }, 60_000);

  it('stops when cancelled and keeps the view it had', async () => {
    const before = service.kpis();
    progress.length = 0;
    const opening = service.openSession(bytes, 'cancel-me');
    await waitFor(() => progress.some((p) => p !== null && p.fraction > 0), 'reading to start');
    expect(service.cancelOpen()).toBe(true);
    const result = await opening;
    expect(result).toEqual({ status: 'cancelled', name: 'cancel-me', load: 'open' });
    expect(service.kpis()).toEqual(before);
    expect(service.cancelOpen()).toBe(false);
    await waitFor(() => progress.at(-1) === null, 'the progress to clear');
  }, 60_000);
});
