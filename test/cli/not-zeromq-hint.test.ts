// `kvscope capture` and `kvscope collect` pointed at a port that is no ZeroMQ publisher (an HTTP
// server) say so once on stderr: the hint stays the same hint while the case lasts (its count of
// seconds did move on each tick, and each was said again: collect once a second, capture at its end).
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

/** An HTTP server on a free port, counting the TCP connections ZeroMQ makes to it. */
async function httpPort(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((_req, res) => res.end('hello'));
  server.on('connection', () => hits++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

/** Runs the built CLI with args until the hint shows and a few seconds more pass, then stops it. */
async function stderrOf(args: string[], hint: string, hits: () => number): Promise<string[]> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.push(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waitFor(() => stderr.includes(hint), 'the hint', 20_000);
  // ZeroMQ retries every 100 ms at the fastest: 25 more attempts put the hint's count more than
  // two seconds past the one said, where a count that moved on was said again.
  const seen = hits();
  await waitFor(() => hits() >= seen + 25, 'more connection attempts', 20_000);
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  return stderr.split('\n');
}

describe('a CLI source on a port that does not speak ZeroMQ', () => {
  it('capture says the port is no ZeroMQ publisher once, not again as it ends', async () => {
    const { port, hits } = await httpPort();
    const hint = `# tcp://127.0.0.1:${port} accepts TCP connections but does not answer as a ZeroMQ publisher`;
    const endpoint = `tcp://127.0.0.1:${port}`;
    const lines = await stderrOf(
      ['capture', '--endpoint', endpoint, '--stall-after', '1'],
      hint,
      hits,
    );
    expect(lines.filter((l) => l.startsWith(hint))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('# connecting'))).toHaveLength(1);
    expect(lines.at(-2)).toMatch(/^# summary \{"messages":0,/);
  });

  it('collect says it once, not once a second', async () => {
    const { port, hits } = await httpPort();
    const endpoint = `tcp://127.0.0.1:${port}`;
    const hint = `${endpoint}: connecting (${endpoint} accepts TCP connections but does not answer as a ZeroMQ publisher`;
    const args = ['collect', '--endpoint', endpoint, '--metrics-port', '0'];
    const lines = await stderrOf(args, hint, hits);
    expect(lines.filter((l) => l.includes('does not answer as a ZeroMQ publisher'))).toHaveLength(
      1,
    );
  });
});
