// `kvscope capture` pointed at a port that is no ZeroMQ publisher (an HTTP server) says so once on
// stderr: the hint's seconds move on while it stays the same hint, and the capture's end (its
// source closing) must not print it again with a later count.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { waitFor } from '../support/wait-for';

beforeAll(() => ensureBuilt(), 180_000);

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('kvscope capture on a port that does not speak ZeroMQ', () => {
  it('says the port is no ZeroMQ publisher once, not again as it ends', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => res.end('hello'));
    server.on('connection', () => hits++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const child = spawn(
      process.execPath,
      [CLI, 'capture', '--endpoint', `tcp://127.0.0.1:${port}`, '--stall-after', '1'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanup.push(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const hint = `# tcp://127.0.0.1:${port} accepts TCP connections but does not answer as ZeroMQ`;
    await waitFor(() => stderr.includes(hint), 'the hint', 20_000);
    // ZeroMQ retries every 100 ms: 15 more attempts put the hint's count a second past the one
    // printed, the case that printed it twice.
    const seen = hits;
    await waitFor(() => hits >= seen + 15, 'more connection attempts', 20_000);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const lines = stderr.split('\n');
    expect(lines.filter((l) => l.startsWith(hint))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('# connecting'))).toHaveLength(1);
    expect(lines.at(-2)).toMatch(/^# summary \{"messages":0,/);
  });
});
