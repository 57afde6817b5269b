// `kvscope serve`'s service thread for real: the built host entry (dist/service-host.cjs) in a
// worker thread, fed by the simulator over real ZeroMQ, reached only through the link's messages.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId, Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo, UpdateFrame } from '../../shared/api-types';
import {
  SERVICE_SEMI_SPACE_MB,
  startServiceWorker,
  type ServiceWorker,
} from '../../electron/serve/service-worker';
import { SimPublisher } from '../../electron/sim/publisher';
import { ROOT } from '../support/built-app';
import { waitFor } from '../support/wait-for';

const ENTRY = path.join(ROOT, 'dist/service-host.cjs');
let dir: string;
let sim: SimPublisher;
let worker: ServiceWorker;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-worker-'));
  sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 5, replay: false });
  const rank = sim.ranks[0];
  if (!rank) throw new Error('no rank');
  worker = await startServiceWorker(ENTRY, {
    dataDir: dir,
    endpoints: [
      {
        name: 'sim',
        endpoint: rank.pubEndpoint,
        mode: 'connect',
        topic: '',
        replayEndpoint: null,
        dpRanks: 1,
      },
    ],
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 20,
  });
});

afterAll(async () => {
  await worker?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the service in a worker thread', () => {
  it('takes the stream in its own thread and pushes frames that count it', async () => {
    expect(worker.thread.threadId).not.toBe(threadId);
    const frames: UpdateFrame[] = [];
    const client = worker.link.connect((channel, payload) => {
      if (channel !== 'update') return;
      const frame = payload as UpdateFrame;
      frames.push(frame);
      void client.invoke('frames:ack', [frame.n]);
    });
    for (let i = 0; i < 400 && (frames.at(-1)?.kpis.events ?? 0) === 0; i++) {
      await sim.publish(5);
      await waitFor(() => frames.length > 0, 'a first frame');
    }
    await waitFor(() => (frames.at(-1)?.kpis.events ?? 0) > 0, 'a frame with events');
    expect(frames.at(-1)?.sources.map((s) => s.name)).toEqual(['sim']);
    client.close();
  });

  it('answers every contract channel through the relay, and a refusal with its reason', async () => {
    const client = worker.link.connect(() => undefined);
    const info = (await client.invoke('app:info', [])) as AppInfo;
    expect(info.transport).toBe('websocket');
    expect(await client.invoke('profiles:list', [])).toMatchObject([{ name: 'sim' }]);
    await expect(client.invoke('session:open', [])).rejects.toThrow(/dialogs and uploads/);
    client.close();
  });

  it('renders /metrics from the registry in the worker', async () => {
    const metrics = await worker.link.metricsText();
    expect(metrics.contentType).toMatch(/text\/plain/);
    expect(metrics.text).toMatch(/^kvscope_\w+/m);
  });

  it('reports the bytes of its own structures by part on /metrics', async () => {
    const { text } = await worker.link.metricsText();
    const parts = new Map(
      [...text.matchAll(/^kvscope_memory_bytes\{part="(\w+)"\} (\d+)/gm)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    for (const part of ['hash_ids', 'forest', 'event_log', 'analysis_holdings', 'ghost_lists'])
      expect(parts.get(part)).toBeGreaterThan(0);
    expect(parts.has('recording_queue')).toBe(true);
    expect(parts.has('hot_prefixes')).toBe(true);
  });

  it('starts its thread with a young generation of two semi-spaces of SERVICE_SEMI_SPACE_MB', async () => {
    // V8 reads the flag as an isolate is made, and flags are the process's: a thread made now, as
    // the service's was, and made to allocate hard, keeps its new space at 2 x 4 MB (V8's own
    // default grows it to 32 MB under this load).
    const probe = new Worker(
      `const v8 = require('node:v8');
       let keep = [];
       for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 200000) keep = []; }
       const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
       require('node:worker_threads').parentPort.postMessage(s.space_size);`,
      { eval: true },
    );
    const newSpace = await new Promise<number>((resolve) => probe.once('message', resolve));
    await probe.terminate();
    expect(newSpace).toBeGreaterThan(0);
    expect(newSpace).toBeLessThanOrEqual(2 * SERVICE_SEMI_SPACE_MB * 2 ** 20);
  });

  it('reports an exception in the thread with what to do, and ends it with its sockets closed', async () => {
    const lost: string[] = [];
    worker.link.onLost((reason) => lost.push(reason));
    const ended = new Promise<number>((resolve) => worker.thread.once('exit', resolve));
    // A message the host cannot read throws in its listener: an exception nothing catches.
    worker.thread.postMessage(null);
    await waitFor(() => lost.length === 1, 'the crash report');
    expect(lost[0]).toMatch(
      /service thread stopped \(.*null.*\): what it received is in the recordings of .*start kvscope serve again/,
    );
    // Every request from now on fails at once with the same reason, never hangs.
    await expect(worker.link.metricsText()).rejects.toThrow(/start kvscope serve again/);
    // It closed its ZeroMQ sockets first, so this process lives on (zeromq.js aborts otherwise).
    expect(await ended).toBe(1);
  });
});
