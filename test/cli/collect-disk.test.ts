// `kvscope collect --record` on a disk that fails: the collector runs with a file size limit
// (ulimit -f, SIGXFSZ ignored, so a write past it fails with EFBIG as a full disk fails with
// ENOSPC) while a simulator fills its recording. Headless, stderr is where its operator learns that
// events are no longer recorded: said once, as serve says it, while the metrics go on.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-collect-disk-'));
}, 180_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('kvscope collect --record on a failing disk', () => {
  it('says once on stderr that the recording cannot be written, and keeps serving its metrics', async () => {
    const sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 5 });
    // No file of this process may grow past about 100 KB (512-byte blocks in sh, 1 KiB in bash).
    const script = 'trap "" XFSZ; ulimit -f 200; exec "$0" "$@"';
    const endpoint = sim.ranks[0]?.pubEndpoint ?? '';
    const args = [CLI, 'collect', '--metrics-port', '0', '--endpoint', endpoint];
    const child = spawn(
      'sh',
      ['-c', script, process.execPath, ...args, '--record', '--data-dir', dir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      await expect.poll(() => /metrics on (\S+)/.test(out), { timeout: 20_000 }).toBe(true);
      const url = /metrics on (\S+)/.exec(out)?.[1] ?? '';
      const failure =
        /^kvscope: the recording file cannot be written \(.*EFBIG.*\): events from now on are shown but not recorded$/m;
      await expect
        .poll(
          async () => {
            await sim.publish(200);
            return failure.test(err);
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(true);
      // More batches after the failure: still said once.
      await sim.publish(500);
      const metrics = await fetch(url);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^kvscope_resident_blocks\{/m);
      expect(err.match(/the recording file cannot be written/g)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      await sim.close();
    }
  }, 90_000);
});
