// The browser mode's download on a disk that fails: `kvscope serve` runs with a file size limit
// (ulimit -f, SIGXFSZ ignored, so a write past it fails with EFBIG as a full disk fails with
// ENOSPC) while a simulator fills its recording. Every download it answers 200 must be a whole
// gzip; once the recording cannot be written, the download is refused with what to do.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import { HTTP_ROUTES } from '../../shared/ws-protocol';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-serve-disk-'));
}, 180_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The URL a serve child says it serves on, once it has said so, and its stderr so far. */
async function served(
  child: ChildProcessByStdio<null, Readable, Readable>,
): Promise<{ url: string; stderr: () => string }> {
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await expect.poll(() => /serving on (\S+)/.test(out), { timeout: 20_000 }).toBe(true);
  return { url: /serving on (\S+)/.exec(out)?.[1] ?? '', stderr: () => err };
}

describe('kvscope serve on a failing disk', () => {
  it('never answers a download 200 with a cut gzip, and refuses it once the recording fails', async () => {
    const sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 3 });
    // No file of this process may grow past about 100 KB (512-byte blocks in sh, 1 KiB in bash).
    const script = 'trap "" XFSZ; ulimit -f 200; exec "$0" "$@"';
    const endpoint = sim.ranks[0]?.pubEndpoint ?? '';
    const args = [CLI, 'serve', '--port', '0', '--data-dir', dir, '--endpoint', endpoint];
    const child = spawn('sh', ['-c', script, process.execPath, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const { url } = await served(child);
      let whole = 0;
      let refusal: { http: number; body: unknown } | null = null;
      await expect
        .poll(
          async () => {
            await sim.publish(100);
            const res = await fetch(new URL(HTTP_ROUTES.saveSession, url));
            const body = Buffer.from(await res.arrayBuffer());
            if (res.status === 200) {
              // A whole gzip of whole lines, or this throws and the test fails.
              const lines = gunzipSync(body).toString('utf8').trimEnd().split('\n');
              for (const line of lines) JSON.parse(line);
              whole += 1;
              return false;
            }
            refusal = { http: res.status, body: JSON.parse(body.toString()) as unknown };
            return true;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(true);
      expect(whole).toBeGreaterThan(0);
      expect(refusal).toMatchObject({
        http: 507,
        body: {
          status: 'failed',
          action: 'save',
          error: expect.stringMatching(
            /(recording could not be written|could not be copied for the download) \(.*EFBIG.*\).*free disk space/,
          ),
        },
      });
      // Still serving: the page and the other routes answer.
      expect((await fetch(url)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      await sim.close();
    }
  }, 90_000);

  it('says to make the recordings folder writable when it is read-only, not to free disk space', async () => {
    const data = path.join(dir, 'read-only-recordings');
    const recordings = path.join(data, 'recordings');
    mkdirSync(recordings, { recursive: true });
    // mkdtemp made the test's folder for its owner alone.
    chmodSync(dir, 0o755);
    chmodSync(data, 0o777);
    chmodSync(recordings, 0o555);
    // Root writes into a read-only folder anyway: run serve as nobody then.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const args = [CLI, 'serve', '--port', '0', '--data-dir', data, '--demo'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: data },
      ...user,
    });
    try {
      const { url, stderr } = await served(child);
      const res = await fetch(new URL(HTTP_ROUTES.saveSession, url));
      const body = (await res.json()) as { error?: string };
      expect(res.status).not.toBe(200);
      expect(body.error).toMatch(/\(.*EACCES.*\).*: make .*recordings writable and start/);
      expect(body.error).not.toMatch(/free disk space/);
      // Headless, the operator reads it on stderr too, once.
      expect(
        stderr().match(/^kvscope: the recording file cannot be written \(EACCES/gm),
      ).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      chmodSync(recordings, 0o755);
    }
  }, 60_000);
});
