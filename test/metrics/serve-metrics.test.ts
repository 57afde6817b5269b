// `kvscope serve`'s /metrics over real HTTP, fed by the simulator over real ZeroMQ (two
// data-parallel ranks) and by a vLLM-shaped engine /metrics on loopback: parsed by a real
// Prometheus text parser, it carries the figures the app shows, per source and medium.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { startHttpHost, type HttpHost } from '../../electron/serve/http-host';
import { KvScopeService } from '../../electron/service/service';
import { linkInThread } from '../support/in-thread-host';
import { SimPublisher } from '../../electron/sim/publisher';
import type { PublishedBatch } from '../../electron/sim/types';
import { parsePromText, type PromSample } from '../../electron/metrics/prom-text';
import { serveText, type TextServer } from './http-text-server';
import { vllmMetricsText } from './vllm-sample';
import { eventually, waitFor } from '../support/wait-for';

let dir: string;
let sim: SimPublisher;
let engine: TextServer;
let service: KvScopeService;
let host: HttpHost;
const frames: UpdateFrame[] = [];
const published: PublishedBatch[] = [];

const ENGINES = [
  {
    engine: '0',
    numGpuBlocks: 2048,
    blockSize: 16,
    usage: 0.5,
    queries: 900,
    hits: 300,
    preemptions: 2,
  },
  {
    engine: '1',
    numGpuBlocks: 2048,
    blockSize: 16,
    usage: 0.25,
    queries: 800,
    hits: 100,
    preemptions: 0,
  },
];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-metrics-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>KV Scope</title>');
  engine = await serveText(vllmMetricsText(ENGINES));
  // Port 0: the simulator binds rank 0 and its replay where the OS says, rank 1 on the next
  // ports (trying again elsewhere when one is taken), so no port is looked up and bound later.
  sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    port: 0,
    dp: 2,
    replay: true,
    rate: 0,
    seed: 7,
    clearEvery: 0,
    // A cache small enough that 250 batches evict and re-store (the analysis test needs both).
    gpuBlocks: 512,
  });
  sim.onBatch((b) => published.push(b));
  service = await KvScopeService.start({
    dataDir: path.join(dir, 'data'),
    endpoints: [
      {
        name: 'engine-a',
        endpoint: sim.ranks[0]?.pubEndpoint ?? '',
        mode: 'connect',
        topic: '',
        replayEndpoint: sim.ranks[0]?.replayEndpoint ?? null,
        dpRanks: 2,
        metricsUrl: engine.url(),
      },
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
  host = await startHttpHost({
    service: linkInThread(service),
    rendererDir: dir,
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(dir, 'data'),
  });
  // ZeroMQ drops what is published before the subscription is in place: publish until both hear.
  await eventually(
    async () => {
      await sim.publish(1);
      const f = frames.at(-1);
      return Math.min(...[0, 1].map((i) => f?.sources[i]?.counters.messages ?? 0));
    },
    (n) => n > 0,
    'both ranks to receive a batch',
  );
  await sim.publish(250);
  await service.metrics.pollEngines();
  // Quiet: every rank's last published seq has arrived, and a frame was built after it.
  const last = (rank: number) => published.filter((b) => b.rank === rank).at(-1)?.seq ?? -1;
  await waitFor(() => {
    const rows = service.events({ offset: 0, limit: 5000 }).rows;
    return [0, 1].every((r) =>
      rows.some((e) => e.seq === last(r) && e.source === (r === 0 ? 'cli-1' : 'cli-1#1')),
    );
  }, 'the last batch of each rank');
  const settled = frames.length;
  await waitFor(() => frames.length > settled + 1, 'a frame after the last batch');
}, 30_000);

afterAll(async () => {
  await host?.close();
  await service?.close();
  await sim?.close();
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function scrape(): Promise<{ text: string; samples: PromSample[]; type: string | null }> {
  const res = await fetch(new URL('/metrics', host.url));
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, samples: parsePromText(text).samples, type: res.headers.get('content-type') };
}

const value = (samples: PromSample[], name: string, labels: Record<string, string>) => {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hits.length === 0 ? undefined : hits.reduce((sum, s) => sum + s.value, 0);
};

describe('/metrics in kvscope serve', () => {
  it('is Prometheus text that a real parser reads, with the help and type of each metric', async () => {
    const { text, type } = await scrape();
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusTextFormat(text);
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.get('kvscope_stored_blocks_total')?.type).toBe('COUNTER');
    expect(byName.get('kvscope_resident_blocks')?.type).toBe('GAUGE');
    expect(byName.get('kvscope_messages_total')?.help).toBe('ZeroMQ messages received.');
    expect(byName.get('process_cpu_seconds_total')?.type).toBe('COUNTER');
  });

  it('answers a scraper that asks for OpenMetrics in OpenMetrics, with the same figures', async () => {
    const res = await fetch(new URL('/metrics', host.url), {
      headers: {
        // What Prometheus sends: OpenMetrics first, plain text as the fallback.
        Accept:
          'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      },
    });
    expect(res.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    const text = await res.text();
    expect(text.endsWith('# EOF\n')).toBe(true);
    // A counter family drops `_total`; its samples keep it.
    expect(text).toContain('# TYPE kvscope_stored_blocks counter');
    const frame = frames.at(-1);
    const { samples } = parsePromText(text.replace('# EOF\n', ''));
    expect(value(samples, 'kvscope_stored_blocks_total', {})).toBe(frame?.kpis.storedBlocks);
    // The plain scrape after it is still Prometheus text with its `_total` family names.
    const plain = await scrape();
    expect(plain.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(plain.text).toContain('# TYPE kvscope_stored_blocks_total counter');
  });

  it('carries per source the counters the app shows, labelled by source, endpoint and dp_rank', async () => {
    const { samples } = await scrape();
    const frame = frames.at(-1);
    if (!frame) throw new Error('no frame');
    expect(frame.sources).toHaveLength(2);
    for (const [rank, status] of frame.sources.entries()) {
      const labels = { source: status.name, endpoint: status.endpoint, dp_rank: String(rank) };
      const c = status.counters;
      expect(c.messages).toBeGreaterThan(100);
      expect(value(samples, 'kvscope_messages_total', labels)).toBe(c.messages);
      expect(value(samples, 'kvscope_events_total', labels)).toBe(c.events);
      expect(value(samples, 'kvscope_gaps_total', labels)).toBe(c.gaps);
      expect(value(samples, 'kvscope_recovered_batches_total', labels)).toBe(c.recovered);
      expect(value(samples, 'kvscope_lost_batches_total', labels)).toBe(c.lost);
      expect(value(samples, 'kvscope_duplicate_batches_total', labels)).toBe(c.duplicates);
      expect(value(samples, 'kvscope_resets_total', labels)).toBe(c.resets);
      expect(value(samples, 'kvscope_replay_rejected_total', labels)).toBe(c.replayRejected);
      expect(value(samples, 'kvscope_undecoded_total', labels)).toBe(c.undecoded);
      expect(value(samples, 'kvscope_source_up', labels)).toBe(1);
      const age = value(samples, 'kvscope_source_last_message_age_seconds', labels);
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThan(600); // seconds, not milliseconds or an epoch
      expect(value(samples, 'kvscope_resident_blocks', labels)).toBe(status.residentBlocks);
    }
    expect(frame.sources.map((s) => s.name)).toEqual(['engine-a #0', 'engine-a #1']);
  });

  it('splits stored, removed and resident blocks by medium, adding up to the totals shown', async () => {
    const { samples } = await scrape();
    const frame = frames.at(-1);
    if (!frame) throw new Error('no frame');
    expect(value(samples, 'kvscope_stored_blocks_total', {})).toBe(frame.kpis.storedBlocks);
    expect(value(samples, 'kvscope_removed_blocks_total', {})).toBe(frame.kpis.removedBlocks);
    expect(value(samples, 'kvscope_resident_blocks', {})).toBe(frame.kpis.residentBlocks);
    // Per medium, from the simulator's own batches (those from the first one each rank received).
    const first = new Map<number, number>();
    for (const e of service.events({ offset: 0, limit: 5000 }).rows) {
      const rank = e.source === 'cli-1' ? 0 : 1;
      first.set(rank, Math.min(first.get(rank) ?? Infinity, e.seq));
    }
    const media = new Set<string>();
    for (const rank of [0, 1]) {
      const stored = new Map<string, number>();
      for (const b of published.filter((p) => p.rank === rank && p.seq >= (first.get(rank) ?? 0)))
        for (const ev of b.events)
          if (ev.type === 'BlockStored') {
            const m = ev.medium ?? 'unspecified';
            media.add(m);
            stored.set(m, (stored.get(m) ?? 0) + ev.block_hashes.length);
          }
      for (const [medium, n] of stored)
        expect(
          value(samples, 'kvscope_stored_blocks_total', { dp_rank: String(rank), medium }),
        ).toBe(n);
    }
    expect(media.size).toBeGreaterThan(1);
  });

  it('carries the cache analysis the Insights show: re-stores, thrash, hits, duplicates, lifetimes', async () => {
    const { samples } = await scrape();
    const report = service.insights();
    const frame = frames.at(-1);
    if (!frame) throw new Error('no frame');
    let restores = 0;
    for (const [rank, status] of frame.sources.entries()) {
      const labels = { source: status.name, dp_rank: String(rank) };
      const mine = report.sources.find((r) => r.source === status.id);
      if (!mine) throw new Error(`no insights for ${status.id}`);
      const sum = (name: string) => Math.round(value(samples, name, labels) ?? 0);
      expect(sum('kvscope_restores_total')).toBe(mine.restores);
      expect(sum('kvscope_thrash_restores_total')).toBe(mine.thrashRestores);
      expect(sum('kvscope_announced_hits_total')).toBe(mine.announcedHits);
      expect(sum('kvscope_duplicate_stores_total')).toBe(mine.duplicateStores);
      restores += mine.restores;
    }
    expect(restores).toBeGreaterThan(0);
    for (const l of report.lifetimes) {
      const count = value(samples, 'kvscope_block_lifetime_seconds_count', { medium: l.medium });
      expect(count).toBe(l.count);
      const inf = value(samples, 'kvscope_block_lifetime_seconds_bucket', {
        medium: l.medium,
        le: '+Inf',
      });
      expect(inf).toBe(l.count);
      // The first bucket (le="1") holds the samples below 1 s.
      const first = value(samples, 'kvscope_block_lifetime_seconds_bucket', {
        medium: l.medium,
        le: '1',
      });
      expect(first).toBe(l.histogram[0]?.count);
    }
    expect(report.lifetimes.some((l) => l.count > 0)).toBe(true);
  });

  it('gives the what-if analysis the engine num_gpu_blocks as its GPU capacity', () => {
    const gpu = service.insights().whatIf.filter((w) => w.medium === 'GPU');
    expect(gpu.length).toBe(2);
    for (const w of gpu) {
      expect(w.capacityBasis).toBe('engine');
      expect(w.capacityBlocks).toBe(2048);
    }
  });

  it("exports the engine's own figures per rank beside the stream's", async () => {
    const { samples } = await scrape();
    for (const e of ENGINES) {
      const labels = { dp_rank: e.engine };
      expect(value(samples, 'kvscope_engine_metrics_up', labels)).toBe(1);
      expect(value(samples, 'kvscope_engine_gpu_blocks', labels)).toBe(e.numGpuBlocks);
      expect(value(samples, 'kvscope_engine_kv_cache_usage_ratio', labels)).toBe(e.usage);
      expect(value(samples, 'kvscope_engine_prefix_cache_queries_total', labels)).toBe(e.queries);
      expect(value(samples, 'kvscope_engine_prefix_cache_hits_total', labels)).toBe(e.hits);
      expect(value(samples, 'kvscope_engine_preemptions_total', labels)).toBe(e.preemptions);
    }
    const readings = service.metrics.engineReadings();
    expect(readings.map((r) => [r.id, r.ok, r.figures?.numGpuBlocks])).toEqual([
      ['cli-1', true, 2048],
      ['cli-1#1', true, 2048],
    ]);
  });

  it("drops the engine's figures once its metrics URL dies, keeping kvscope_engine_metrics_up 0", async () => {
    // Last in this file: the engine's /metrics stops for good (connection refused).
    await engine.close();
    await eventually(
      async () => {
        await service.metrics.pollEngines();
        return service.metrics.engineReadings().map((r) => r.ok);
      },
      (ok) => ok.every((o) => !o),
      'both ranks to read their engine metrics as down',
    );
    const { samples } = await scrape();
    for (const e of ENGINES) {
      const labels = { dp_rank: e.engine };
      expect(value(samples, 'kvscope_engine_metrics_up', labels)).toBe(0);
      // A series not known now is absent (the Prometheus way), not the last good read.
      const engineSeries = samples.filter(
        (s) =>
          s.name.startsWith('kvscope_engine_') &&
          s.name !== 'kvscope_engine_metrics_up' &&
          s.labels.dp_rank === e.engine,
      );
      expect(engineSeries.map((s) => s.name)).toEqual([]);
    }
    // The app itself still shows the last good figures, as stale.
    expect(service.metrics.engineReadings().map((r) => r.figures?.numGpuBlocks)).toEqual([
      2048, 2048,
    ]);
  });
});
