// The registry's rendering: counters and gauges from a snapshot, the lifetime histogram from bucket
// counts, the analysis hook, and names kept apart when two sources would share one series.
import { describe, expect, it } from 'vitest';
import { KvMetricsRegistry } from '../../electron/metrics/kv-registry';
import { MetricsHub } from '../../electron/metrics/metrics-hub';
import type { MetricsSnapshot, SourceMetrics } from '../../electron/metrics/metrics-snapshot';
import { parsePromText, type PromSample } from '../../electron/metrics/prom-text';
import type { SourceHealth } from '../../shared/api-types';
import { batch, stored } from '../model/helpers';
import { zeroCounters } from '../../electron/ingest/kv-source';

const counters = zeroCounters();

const source = (over: Partial<SourceMetrics> = {}): SourceMetrics => ({
  id: 's1',
  name: 'engine "a"',
  endpoint: 'tcp://10.0.0.1:5557',
  dpRank: 3,
  state: 'stalled',
  counters: { ...counters, messages: 7 },
  lastMessageAt: 99,
  media: [{ medium: 'GPU', stored: 5, removed: 2, resident: 3 }],
  ...over,
});

const snap = (over: Partial<MetricsSnapshot> = {}): MetricsSnapshot => ({
  at: 100_000,
  sources: [source()],
  engines: [],
  analysis: null,
  ...over,
});

async function render(s: MetricsSnapshot): Promise<{ text: string; samples: PromSample[] }> {
  const text = await new KvMetricsRegistry().render(s);
  return { text, samples: parsePromText(text).samples };
}

const find = (samples: PromSample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );

describe('the KV Scope registry', () => {
  it('labels each series with source, endpoint, dp_rank (and medium), label values escaped', async () => {
    const { samples } = await render(snap());
    expect(find(samples, 'kvscope_messages_total')).toEqual([
      {
        name: 'kvscope_messages_total',
        labels: { source: 'engine "a"', endpoint: 'tcp://10.0.0.1:5557', dp_rank: '3' },
        value: 7,
      },
    ]);
    expect(find(samples, 'kvscope_resident_blocks')[0]?.labels.medium).toBe('GPU');
    expect(find(samples, 'kvscope_source_up')[0]?.value).toBe(0); // stalled is not up
    expect(find(samples, 'kvscope_source_last_message_age_seconds')[0]?.value).toBe(1);
  });

  it('exports no analysis series until the analysis hands in figures', async () => {
    const { text, samples } = await render(snap());
    expect(text).toContain('# TYPE kvscope_restores_total counter');
    expect(find(samples, 'kvscope_restores_total')).toEqual([]);
    expect(samples.some((s) => s.name.startsWith('kvscope_block_lifetime_seconds'))).toBe(false);
  });

  it('renders the lifetime histogram from bucket counts: cumulative, +Inf, sum and count', async () => {
    const { text, samples } = await render(
      snap({
        analysis: {
          media: [
            {
              source: 's1',
              medium: 'GPU',
              newStores: 20,
              restores: 4,
              thrashRestores: 1,
              announcedHits: 9,
            },
          ],
          duplicateStores: [
            { source: 's1', count: 2 },
            { source: 'gone', count: 5 },
          ],
          lifetimes: [
            {
              medium: 'GPU',
              counts: [1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3],
              // One of the two in [2, 5) s is 2 s exactly: Prometheus' `le="2"` holds it.
              atBounds: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
              sumSec: 9000,
            },
          ],
        },
      }),
    );
    expect(text).toContain('# TYPE kvscope_block_lifetime_seconds histogram');
    const bucket = (le: string) =>
      find(samples, 'kvscope_block_lifetime_seconds_bucket', { le, medium: 'GPU' })[0]?.value;
    expect([bucket('1'), bucket('2'), bucket('5'), bucket('3600'), bucket('+Inf')]).toEqual([
      1, 2, 3, 3, 6,
    ]);
    expect(find(samples, 'kvscope_block_lifetime_seconds_count')[0]?.value).toBe(6);
    expect(find(samples, 'kvscope_block_lifetime_seconds_sum')[0]?.value).toBe(9000);
    expect(find(samples, 'kvscope_restores_total', { medium: 'GPU', dp_rank: '3' })[0]?.value).toBe(
      4,
    );
    expect(find(samples, 'kvscope_thrash_restores_total')[0]?.value).toBe(1);
    expect(find(samples, 'kvscope_announced_hits_total')[0]?.value).toBe(9);
    // Figures of a source no longer subscribed are not exported under someone else's labels.
    expect(find(samples, 'kvscope_duplicate_stores_total').map((s) => s.value)).toEqual([2]);
  });

  it('tells apart two sources that share a name, endpoint and rank', async () => {
    const status = (id: string): SourceHealth => ({
      id,
      profileId: id,
      name: 'same',
      endpoint: 'tcp://127.0.0.1:5557',
      state: 'connected',
      counters,
      lastError: null,
      hint: null,
      fingerprint: null,
      lastMessageAt: null,
    });
    const hub = new MetricsHub({ statuses: () => [status('p1'), status('p2')] });
    hub.tally.record(batch([stored('p1', 1, ['1'])]));
    const samples = parsePromText(await hub.render()).samples;
    expect(find(samples, 'kvscope_messages_total').map((s) => s.labels.source)).toEqual([
      'same',
      'same (p2)',
    ]);
    expect(find(samples, 'kvscope_stored_blocks_total', { source: 'same' })[0]?.value).toBe(1);
    hub.close();
  });
});
