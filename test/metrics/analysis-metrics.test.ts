// The analysis hook: CacheAnalysis' running figures as /metrics exports them.
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { analysisMetrics, useEngineCapacity } from '../../electron/metrics/analysis-metrics';
import { KvMetricsRegistry } from '../../electron/metrics/kv-registry';
import { parsePromText } from '../../electron/metrics/prom-text';
import { batch, removed, stored } from '../model/helpers';
import { zeroCounters } from '../../electron/ingest/kv-source';

describe('the analysis metrics', () => {
  it('maps new stores, re-stores, hits, duplicates and lifetimes (with their sum) of the analysis', async () => {
    const a = new CacheAnalysis({ thrashWindowS: 60 });
    a.apply(batch([stored('a', 100, ['1', '2'])]));
    a.apply(batch([stored('b', 100, ['1'])])); // held by a: a duplicate store
    a.apply(batch([stored('a', 101, ['2'])])); // resident: an announced hit
    a.apply(batch([removed('a', 102.5, ['1'])])); // lifetime 2.5 s
    a.apply(batch([removed('a', 107, ['2'])])); // lifetime 7 s
    a.apply(batch([stored('a', 110, ['1'])])); // a re-store within 60 s (thrash), b holds it
    const m = analysisMetrics(a);
    expect(m.media).toEqual([
      // a: 1 and 2 new, 2 a hit, 1 new again (a re-store); b: 1 new.
      {
        source: 'a',
        medium: 'GPU',
        newStores: 3,
        restores: 1,
        thrashRestores: 1,
        announcedHits: 1,
      },
      {
        source: 'b',
        medium: 'GPU',
        newStores: 1,
        restores: 0,
        thrashRestores: 0,
        announcedHits: 0,
      },
    ]);
    expect(m.duplicateStores).toEqual([
      { source: 'a', count: 1 },
      { source: 'b', count: 1 },
    ]);
    expect(m.lifetimes).toEqual([
      {
        medium: 'GPU',
        counts: [0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        atBounds: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        sumSec: 9.5,
      },
    ]);
    const snap = {
      at: 0,
      sources: ['a', 'b'].map((id) => ({
        id,
        name: id,
        endpoint: `tcp://h/${id}`,
        dpRank: 0,
        state: 'connected' as const,
        counters: zeroCounters(),
        lastMessageAt: null,
        media: [],
      })),
      engines: [],
      analysis: m,
    };
    const samples = parsePromText(await new KvMetricsRegistry().render(snap)).samples;
    const sum = samples.find((s) => s.name === 'kvscope_block_lifetime_seconds_sum');
    expect(sum).toEqual({
      name: 'kvscope_block_lifetime_seconds_sum',
      labels: { medium: 'GPU' },
      value: 9.5,
    });
  });

  it('counts a lifetime equal to a bound at that `le`, as Prometheus reads it (the analysis puts it above)', async () => {
    const a = new CacheAnalysis();
    a.apply(batch([stored('a', 100, ['1', '2', '3'])]));
    a.apply(batch([removed('a', 101, ['1'])])); // 1 s
    a.apply(batch([removed('a', 105, ['2'])])); // 5 s
    a.apply(batch([removed('a', 160, ['3'])])); // 60 s
    // The analysis' own histogram: a sample equal to a bound in the bucket above it.
    const gpu = a.report().lifetimes.find((l) => l.medium === 'GPU')?.histogram ?? [];
    expect(gpu.filter((b) => b.count > 0).map((b) => b.upperS)).toEqual([2, 10, 120]);
    const snap = {
      at: 0,
      sources: [],
      engines: [],
      analysis: analysisMetrics(a),
    };
    const samples = parsePromText(await new KvMetricsRegistry().render(snap)).samples;
    const le = (bound: string) =>
      samples.find(
        (s) => s.name === 'kvscope_block_lifetime_seconds_bucket' && s.labels.le === bound,
      )?.value;
    expect(['0.5', '1', '2', '5', '10', '60', '+Inf'].map(le)).toEqual([
      undefined,
      1,
      1,
      2,
      2,
      3,
      3,
    ]);
  });

  it("takes the engine's num_gpu_blocks as the GPU capacity of the what-if", () => {
    const a = new CacheAnalysis();
    a.apply(batch([stored('a', 1, ['1', '2'])]));
    useEngineCapacity(a, [
      { id: 'a', url: 'http://x/metrics', ok: true, message: null, readAt: 1, figures: null },
    ]);
    expect(a.report().whatIf[0]?.capacityBasis).toBe('peak-resident');
    const figures = {
      numGpuBlocks: 4096,
      blockSize: 16,
      kvCacheUsage: 0.1,
      prefixCacheQueries: null,
      prefixCacheHits: null,
      preemptions: null,
      modelName: null,
    };
    useEngineCapacity(a, [
      { id: 'a', url: 'http://x/metrics', ok: true, message: null, readAt: 1, figures },
    ]);
    expect(a.report().whatIf[0]).toMatchObject({ capacityBasis: 'engine', capacityBlocks: 4096 });
  });
});
