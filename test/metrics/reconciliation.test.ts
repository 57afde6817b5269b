// The engine's own metrics beside the events, through the service: a simulated vLLM rank over real
// ZeroMQ and a vLLM-shaped /metrics on a real HTTP server on loopback; URLs that are down or wrong
// are a clear message for their own source only.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineReconciliation, UpdateFrame } from '../../shared/api-types';
import { EngineHistory } from '../../electron/metrics/engine-history';
import type { EngineFigures } from '../../electron/metrics/engine-figures';
import { KvScopeService } from '../../electron/service/service';
import { SimPublisher } from '../../electron/sim/publisher';
import type { PublishedBatch } from '../../electron/sim/types';
import { connectTo } from '../support/test-service';
import { eventually, waitFor } from '../support/wait-for';
import { closedPort, serveText, textHandler, type TextServer } from './http-text-server';
import { vllmMetricsText, type SampleEngine } from './vllm-sample';

const GPU_BLOCKS = 4096;

let dir: string;
let sim: SimPublisher;
let engine: TextServer;
let notVllm: TextServer;
let service: KvScopeService;
const frames: UpdateFrame[] = [];
const published: PublishedBatch[] = [];

const sample = (over: Partial<SampleEngine>): SampleEngine => ({
  engine: '0',
  numGpuBlocks: GPU_BLOCKS,
  blockSize: 16,
  usage: 0,
  queries: 1000,
  hits: 250,
  preemptions: 4,
  ...over,
});

const entry = (id: string): EngineReconciliation => {
  const e = service.engineReconciliation().find((r) => r.source === id);
  if (!e) throw new Error(`no reconciliation for ${id}`);
  return e;
};

/** Reads the engines until the source's entry holds (a read can time out on a loaded machine). */
const readUntil = (id: string, ok: (r: EngineReconciliation) => boolean) =>
  eventually(
    async () => {
      await service.metrics.pollEngines();
      return entry(id);
    },
    ok,
    `the engine metrics of ${id}`,
  );

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-reconcile-'));
  engine = await serveText(vllmMetricsText([sample({})]));
  notVllm = await serveText('# just a web page\nnot_vllm_total 1\n');
  const down = await closedPort();
  // The simulator binds port 0 and says where (a port looked up first could be taken before the
  // bind); nothing listens on the other sources' ports (one each: two connections to one endpoint
  // are refused).
  const nowhere = await closedPort();
  const nowhereElse = await closedPort();
  sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    port: 0,
    rate: 0,
    seed: 3,
    clearEvery: 0,
    gpuBlocks: 512,
    reannounce: 0.3,
  });
  sim.onBatch((b) => published.push(b));
  const profile = (name: string, endpoint: string, metricsUrl: string) => ({
    ...connectTo(name, endpoint),
    metricsUrl,
  });
  service = await KvScopeService.start({
    dataDir: path.join(dir, 'data'),
    endpoints: [
      profile('engine-a', sim.ranks[0]?.pubEndpoint ?? '', engine.url()),
      profile('engine-down', `tcp://127.0.0.1:${nowhere}`, `http://127.0.0.1:${down}/metrics`),
      profile('engine-wrong', `tcp://127.0.0.1:${nowhereElse}`, notVllm.url()),
    ],
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 20,
  });
  const sub = service.subscribe({
    send: (f) => {
      frames.push(f);
      queueMicrotask(() => sub.ack(f.n));
    },
  });
  await eventually(
    async () => {
      await sim.publish(1);
      return frames.at(-1)?.sources.find((s) => s.id === 'cli-1')?.counters.messages ?? 0;
    },
    (n) => n > 0,
    'engine-a to receive a batch',
  );
  await sim.publish(300);
  const last = () => published.at(-1)?.seq ?? -1;
  await waitFor(
    () => service.events({ offset: 0, limit: 1 }).rows[0]?.seq === last(),
    'the last batch published',
  );
}, 30_000);

afterAll(async () => {
  await service?.close();
  await sim?.close();
  await engine?.close();
  await notVllm?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the engine metrics beside the events', () => {
  it('puts resident blocks from the events beside usage x num_gpu_blocks, with the difference', async () => {
    const truthGpu = sim.stats().ranks[0]?.resident.GPU ?? 0;
    expect(truthGpu).toBeGreaterThan(100);
    // The engine says its requests hold 100 blocks fewer than the events have resident.
    engine.set(textHandler(vllmMetricsText([sample({ usage: (truthGpu - 100) / GPU_BLOCKS })])));
    const r = await readUntil('cli-1', (e) => e.ok && e.engineUsedBlocks === truthGpu - 100);
    expect(r).toMatchObject({
      ok: true,
      message: null,
      numGpuBlocks: GPU_BLOCKS,
      blockSize: 16,
      eventResidentBlocks: truthGpu,
      engineUsedBlocks: truthGpu - 100,
      // The what-if analysis takes the engine's capacity once it is known.
      whatIfCapacity: { blocks: GPU_BLOCKS, basis: 'engine' },
    });
    expect(service.insights().whatIf.find((w) => w.medium === 'GPU')).toMatchObject({
      capacityBlocks: GPU_BLOCKS,
      capacityBasis: 'engine',
    });
  });

  it('rates the engine prefix-cache hits overall and over the last minute, beside the announced hits', async () => {
    engine.set(
      textHandler(vllmMetricsText([sample({ queries: 1000, hits: 250, preemptions: 4 })])),
    );
    await readUntil('cli-1', (e) => e.ok && e.preemptions === 4);
    engine.set(
      textHandler(vllmMetricsText([sample({ queries: 3000, hits: 1850, preemptions: 7 })])),
    );
    const r = await readUntil('cli-1', (e) => e.ok && e.preemptions === 7);
    expect(r.hitRate).toBeCloseTo(1850 / 3000, 10);
    // Every earlier read counted 250 hits of 1000 queries: over the last 60 s, 1600 of 2000.
    expect(r.windowSec).toBe(60);
    expect(r.windowHitRate).toBeCloseTo(1600 / 2000, 10);
    expect(r.preemptions).toBe(7);
    expect(r.preemptionSteps.at(-1)?.n).toBe(3);
    expect(r.announcedHits).toBeGreaterThan(0);
    expect(r.announcedHits + r.newStores).toBeGreaterThan(r.announcedHits);
    expect(r.announcedHitRatio).toBeCloseTo(r.announcedHits / (r.announcedHits + r.newStores), 10);
  });

  it('says per source what is wrong with a metrics URL that is down or is not an engine', async () => {
    // Read until every URL has answered or failed for its own reason (a loaded machine can make
    // one read time out first: that is a message too, only another one).
    await eventually(
      async () => {
        await service.metrics.pollEngines();
        return [entry('cli-1').ok, entry('cli-3').message ?? ''] as const;
      },
      ([ok, wrongMessage]) => ok && wrongMessage.includes('no vllm: metrics'),
      'each metrics URL to be read',
    );
    const down = entry('cli-2');
    expect(down.ok).toBe(false);
    expect(down.message).toMatch(/connection refused: is the engine's API server running/);
    expect(down.readAt).toBeNull();
    const wrong = entry('cli-3');
    expect(wrong.ok).toBe(false);
    expect(wrong.message).toMatch(/no vllm: metrics: is this the \/metrics of a vLLM engine/);
    // The good source is untouched by the others, and the service still answers everything else.
    expect(entry('cli-1').ok).toBe(true);
    // A live series ends at the last complete second: on a fast machine the events may all still
    // be in the current one, so wait for it to complete.
    await waitFor(
      () => service.series({ rangeSec: null }).points.length > 0,
      'the series of the events',
    );
  });

  it('keeps the last good figures, stale, when a URL that worked stops answering', async () => {
    engine.set((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const r = await readUntil('cli-1', (e) => !e.ok && /answered HTTP 503/.test(e.message ?? ''));
    expect(r.readAt).not.toBeNull();
    expect(r.numGpuBlocks).toBe(GPU_BLOCKS);
  });
});

describe('the engine history', () => {
  const figures = (queries: number, hits: number, preemptions: number): EngineFigures => ({
    numGpuBlocks: 10,
    blockSize: 16,
    kvCacheUsage: 0,
    prefixCacheQueries: queries,
    prefixCacheHits: hits,
    preemptions,
    modelName: null,
  });

  it('rates hits over the reads within the window, and counts a counter reset as a restart', () => {
    const h = new EngineHistory();
    h.add('s', 0, figures(0, 0, 0));
    h.add('s', 30_000, figures(1000, 100, 2));
    h.add('s', 70_000, figures(3000, 1100, 5));
    // The window of 60 s before the newest read starts at the read of 30 s.
    expect(h.windowHitRate('s')).toBeCloseTo(1000 / 2000, 10);
    expect(h.preemptionSteps('s')).toEqual([
      { t: 30, n: 2 },
      { t: 70, n: 3 },
    ]);
    // The engine restarted: its counters start again from zero.
    h.add('s', 75_000, figures(200, 50, 1));
    expect(h.preemptionSteps('s').at(-1)).toEqual({ t: 75, n: 1 });
    expect(h.windowHitRate('s')).toBeCloseTo(50 / 200, 10);
  });

  it('says nothing with one read or no queries, and forgets a removed source', () => {
    const h = new EngineHistory();
    h.add('s', 0, figures(10, 5, 0));
    expect(h.windowHitRate('s')).toBeNull();
    h.add('s', 1000, figures(10, 5, 0));
    expect(h.windowHitRate('s')).toBeNull();
    h.forget('s');
    expect(h.preemptionSteps('s')).toEqual([]);
  });

  it('keeps a bounded number of reads', () => {
    const h = new EngineHistory();
    for (let i = 0; i < 2000; i++) h.add('s', i * 1000, figures(i, i, i));
    expect(h.preemptionSteps('s').length).toBeLessThan(720);
  });
});
