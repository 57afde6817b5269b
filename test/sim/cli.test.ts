import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decode } from '@msgpack/msgpack';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for';
import { Collector } from './helpers';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'kvscope-sim-cli-'));
const bundle = join(dir, 'cli.cjs');
const children: ChildProcess[] = [];
const subs: Collector[] = [];

beforeAll(async () => {
  await build({
    entryPoints: [join(root, 'test/sim/cli-entry.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: bundle,
    external: ['zeromq'],
    logLevel: 'warning',
  });
});
afterEach(() => {
  for (const s of subs.splice(0)) s.close();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): {
  child: ChildProcess;
  err: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [bundle, 'sim', ...args], {
    env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, err: () => err, exit };
}

describe('kvscope sim', () => {
  it('publishes where it says, then exits 0 on SIGINT', async () => {
    const p = run(['--port', '0', '--rate', '200', '--format', 'array', '--hash', 'bytes']);
    await waitFor(() => /PUB bound tcp:\/\/\S+/.test(p.err()), 'the endpoint line');
    const ep = /PUB bound (tcp:\/\/\S+),/.exec(p.err())![1]!;
    expect(p.err()).toMatch(/replay tcp:\/\/127\.0\.0\.1:\d+/);
    const c = Collector.connect(ep);
    subs.push(c);
    await waitFor(() => c.got.length >= 20, '20 batches from the CLI');
    const first = c.got[0]!;
    expect(first.frames).toBe(3);
    expect(first.topic).toBe('kv-events');
    const batch = decode(first.payload, { useBigInt64: true }) as [number, unknown[][], number];
    expect(Array.isArray(batch[1][0])).toBe(true);
    p.child.kill('SIGINT');
    expect(await p.exit).toBe(0);
    // It says what it knows: what it built and what ZeroMQ took, never "sent" (a PUB drops
    // silently past its high-water mark), and at start what that means for a slow subscriber.
    expect(p.err()).toMatch(/a subscriber more than 100,000 messages behind loses the rest there/);
    const stop = /stopped: ([\d,]+) batches built, ([\d,]+) handed to ZeroMQ; they stored/.exec(
      p.err(),
    );
    expect(stop).not.toBeNull();
    const [built, handed] = [stop![1]!, stop![2]!].map((n) => Number(n.replace(/,/g, '')));
    // Unloaded, ZeroMQ took every batch built, and at least those this subscriber received.
    expect(handed).toBe(built);
    expect(handed).toBeGreaterThanOrEqual(c.got.length);
  });

  it('rejects bad options with a clear error and exit code 1', async () => {
    const a = run(['--format', 'xml']);
    expect(await a.exit).toBe(1);
    expect(a.err()).toMatch(/--format must be "array" .* or "map"/);
    const b = run(['--port', '5557', '--dp', '2', '--replay-port', '5558']);
    expect(await b.exit).toBe(1);
    expect(b.err()).toMatch(/overlaps the PUB ports 5557\.\.5558/);
    const c = run(['--rate', 'fast']);
    expect(await c.exit).toBe(1);
    expect(c.err()).toMatch(/--rate must be a number/);
    // A host that is no address of this machine is said so (it asked whether the port was in use).
    const e = run(['--host', '999.1.1.1', '--port', '0']);
    expect(await e.exit).toBe(1);
    expect(e.err()).toMatch(
      /that host is not an address of this machine: pass --host 127\.0\.0\.1/,
    );
    const held = createServer();
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const port = (held.address() as AddressInfo).port;
    const f = run(['--host', '127.0.0.1', '--port', String(port), '--no-replay']);
    expect(await f.exit).toBe(1);
    held.close();
    expect(f.err()).toMatch(/the port is in use: try another port or 0/);
    // As many ranks as serve and capture take (it stopped at 64).
    const g = run(['--dp', '257']);
    expect(await g.exit).toBe(1);
    expect(g.err()).toMatch(/--dp must be an integer from 1 to 256, got "257"/);
    // The ranks' own ports first: rank 1 of 65535 would be 65536 (it blamed the replay port).
    const d = run(['--port', '65535', '--dp', '2']);
    expect(await d.exit).toBe(1);
    expect(d.err()).toMatch(
      /--port 65535 with --dp 2: rank 1 would publish on port 65536, past 65535/,
    );
  });
});
