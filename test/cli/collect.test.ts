// `kvscope collect` (the built CLI) against the simulator: headless, /metrics on loopback, an
// engine metrics URL that is down said plainly, no recording unless asked, Ctrl-C exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePromText, type PromSample } from '../../electron/metrics/prom-text';
import { SimPublisher } from '../../electron/sim/publisher';
import type { SimFaults } from '../../electron/sim/types';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { closedPort } from '../metrics/http-text-server';
import { eventually, waitFor } from '../support/wait-for';

beforeAll(() => ensureBuilt(), 180_000);

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function collect(args: string[]): Running {
  const child = spawn(process.execPath, [CLI, 'collect', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  cleanup.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, out: () => out, err: () => err, exited };
}

async function sim(faults?: SimFaults): Promise<SimPublisher> {
  const s = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 5, faults });
  cleanup.push(() => s.close());
  return s;
}

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'kvscope-collect-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function metricsUrl(run: Running): Promise<string> {
  await waitFor(() => /metrics on (\S+)/.test(run.out()), 'the collector to print its URL');
  return /metrics on (\S+)/.exec(run.out())?.[1] ?? '';
}

async function scrape(url: string): Promise<PromSample[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return parsePromText(await res.text()).samples;
}

const one = (samples: PromSample[], name: string) => samples.find((s) => s.name === name)?.value;

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(url: string, hostHeader: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Host: hostHeader } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kvscope collect', () => {
  it('serves the stream counters on /metrics, headless, and records nothing unless asked', async () => {
    // One message left off the PUB socket on purpose, after the warm-up: see the fence below.
    let dropNext = false;
    const s = await sim({
      dropFromPub: () => {
        const drop = dropNext;
        dropNext = false;
        return drop;
      },
    });
    const data = tempDir();
    const down = await closedPort();
    const run = collect([
      '--endpoint',
      s.ranks[0]?.pubEndpoint ?? '',
      '--engine-metrics',
      `http://127.0.0.1:${down}/metrics`,
      '--metrics-port',
      '0',
      '--data-dir',
      data,
    ]);
    const url = await metricsUrl(run);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const messages = (x: PromSample[]) => one(x, 'kvscope_messages_total') ?? 0;
    // ZeroMQ drops what is published before the subscription is in place: publish until it hears.
    await eventually(
      async () => {
        await s.publish(1);
        return scrape(url);
      },
      (x) => messages(x) > 0,
      'the first message',
    );
    // Warm-up messages published after the first one heard may still be on their way, so the
    // count seen above is not final. A fence: one message left off the socket, then one sent.
    // ZeroMQ delivers in order, so once the gap it opens shows, every warm-up message is in.
    dropNext = true;
    await s.publish(2);
    const gaps = (x: PromSample[]) => one(x, 'kvscope_gaps_total') ?? 0;
    const warm = messages(
      await eventually(
        () => scrape(url),
        (x) => gaps(x) === 1,
        'the fence',
      ),
    );
    await s.publish(50);
    const last = await eventually(
      () => scrape(url),
      (x) => messages(x) >= warm + 50,
      'the next 50 messages',
    );
    expect(messages(last)).toBe(warm + 50);
    expect(one(last, 'kvscope_source_up')).toBe(1);
    expect(one(last, 'kvscope_engine_metrics_up')).toBe(0);
    expect(last.some((x) => x.name === 'kvscope_stored_blocks_total' && x.value > 0)).toBe(true);
    expect(one(last, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The cache analysis runs in the collector: its counters have series once blocks were stored.
    expect(last.some((x) => x.name === 'kvscope_announced_hits_total')).toBe(true);
    expect(last.some((x) => x.name === 'kvscope_restores_total')).toBe(true);
    await waitFor(() => run.err().includes('connection refused'), 'the engine metrics message');
    expect(run.err()).toContain(`engine metrics http://127.0.0.1:${down}/metrics`);
    expect(existsSync(path.join(data, 'recordings'))).toBe(false);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('says on stderr, once each, when a source connects, its publisher restarts and its engine hangs up', async () => {
    const s = await sim();
    const run = collect(['--endpoint', s.ranks[0]?.pubEndpoint ?? '', '--metrics-port', '0']);
    const url = await metricsUrl(run);
    await eventually(
      async () => {
        await s.publish(1);
        return scrape(url);
      },
      (x) => (one(x, 'kvscope_messages_total') ?? 0) > 0,
      'the first message',
    );
    await waitFor(() => /: connected\n/.test(run.err()), 'the connected line');
    s.restart();
    await eventually(
      async () => {
        await s.publish(1);
        return run.err();
      },
      (e) => e.includes('the publisher restarted'),
      'the restart line',
    );
    await s.close();
    await waitFor(
      () => /: connecting \(the engine at .* closed the connection/.test(run.err()),
      'the hang-up line',
    );
    expect(run.err().match(/: connected\n/g)).toHaveLength(1);
    expect(run.err().match(/the publisher restarted/g)).toHaveLength(1);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('answers only the Host names it serves (DNS rebinding gets a 421); --no-analysis', async () => {
    const s = await sim();
    const run = collect([
      '--endpoint',
      s.ranks[0]?.pubEndpoint ?? '',
      '--metrics-port',
      '0',
      '--no-analysis',
    ]);
    const url = await metricsUrl(run);
    const port = new URL(url).port;
    await eventually(
      async () => {
        await s.publish(1);
        return scrape(url);
      },
      (x) => (one(x, 'kvscope_events_total') ?? 0) > 0,
      'the first events',
    );
    expect((await scrape(url)).some((x) => x.name === 'kvscope_announced_hits_total')).toBe(false);
    expect(await getWithHost(url, `127.0.0.1:${port}`)).toBe(200);
    expect(await getWithHost(url, `localhost:${port}`)).toBe(200);
    expect(await getWithHost(url, `attacker.example:${port}`)).toBe(421);
    expect(await getWithHost(url.replace('/metrics', '/'), `127.0.0.1:${port}`)).toBe(404);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('records every redacted event with --record, flushed when it stops', async () => {
    const s = await sim();
    const data = tempDir();
    const run = collect([
      '--endpoint',
      s.ranks[0]?.pubEndpoint ?? '',
      '--metrics-port',
      '0',
      '--record',
      '--data-dir',
      data,
    ]);
    const url = await metricsUrl(run);
    await waitFor(() => run.err().includes('recording to'), 'the recording path');
    await eventually(
      async () => {
        await s.publish(1);
        return scrape(url);
      },
      (x) => (one(x, 'kvscope_events_total') ?? 0) > 0,
      'the first events',
    );
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    const files = readdirSync(path.join(data, 'recordings'));
    expect(files).toHaveLength(1);
    expect(statSync(path.join(data, 'recordings', files[0] ?? '')).size).toBeGreaterThan(100);
  });

  it('off loopback, answers only a scrape that brings its bearer token', async () => {
    const s = await sim();
    const token = 'collector-test-token-0123';
    const run = collect([
      '--endpoint',
      s.ranks[0]?.pubEndpoint ?? '',
      '--metrics-port',
      '0',
      '--metrics-host',
      '0.0.0.0',
      '--token',
      token,
    ]);
    await waitFor(() => run.out().includes('Authorization: Bearer'), 'the token line');
    expect(run.out()).toContain(`"Authorization: Bearer ${token}"`);
    const port = /metrics on http:\/\/0\.0\.0\.0:(\d+)/.exec(run.out())?.[1];
    const url = `http://127.0.0.1:${port}/metrics`;
    const refused = await fetch(url);
    expect(refused.status).toBe(403);
    // serve's refusal body, and the way a scraper brings the token (collect prints no page URL).
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /needs its token: send `Authorization: Bearer <token>`/,
    );
    const stale = await fetch(url, { headers: { Authorization: 'Bearer an-old-token' } });
    expect(((await stale.json()) as { error: string }).error).toMatch(
      /^the token given is not this KV Scope's/,
    );
    const ok = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE kvscope_messages_total counter');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('refuses to start without an endpoint, and on a metrics port in use, saying why', async () => {
    const none = collect(['--metrics-port', '0']);
    expect(await none.exited).toBe(1);
    expect(none.err()).toMatch(/give at least one --endpoint/);
    const s = await sim();
    const first = collect(['--endpoint', s.ranks[0]?.pubEndpoint ?? '', '--metrics-port', '0']);
    const port = new URL(await metricsUrl(first)).port;
    const second = collect(['--endpoint', s.ranks[0]?.pubEndpoint ?? '', '--metrics-port', port]);
    expect(await second.exited).toBe(1);
    expect(second.err()).toContain(`--metrics-port ${port} is in use`);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // One endpoint twice would count every block it publishes twice: refused, as serve does.
    const endpoint = s.ranks[0]?.pubEndpoint ?? '';
    const twice = collect(['--endpoint', endpoint, '--endpoint', endpoint, '--metrics-port', '0']);
    expect(await twice.exited).toBe(1);
    expect(twice.err()).toContain(
      `${endpoint} is given twice: a second subscription would count every block it publishes twice`,
    );
  });
});
