// `kvscope collect` (the built CLI) over real ZeroMQ: a publisher that names 300 media makes at
// most MAX_MEDIA_LABELS + 1 medium labels per series on /metrics, the media past the first 16 summed
// into medium "other", so every block is still counted and the series stay bounded.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MEDIA_LABELS, OTHER_MEDIUM } from '../../electron/metrics/media-bound';
import { parsePromText, type PromSample } from '../../electron/metrics/prom-text';
import { encodeBatch } from '../../electron/sim/encode';
import type { RawEvent } from '../../electron/sim/types';
import { encodeSeq } from '../../electron/wire/message';
import { CLI, ROOT } from '../support/built-app';
import { StreamPublisher } from '../support/stream-publisher';
import { eventually, waitFor } from '../support/wait-for';

const MEDIA = 300;
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

/** Batch i: two blocks stored on medium M<i>, one of them removed again. */
function batch(i: number): Uint8Array[] {
  const medium = `M${i}`;
  const events: RawEvent[] = [
    {
      type: 'BlockStored',
      block_hashes: [BigInt(2 * i + 1), BigInt(2 * i + 2)],
      parent_block_hash: null,
      token_ids: Array.from({ length: 32 }, (_, k) => k),
      block_size: 16,
      lora_id: null,
      medium,
      lora_name: null,
      extra_keys: null,
      group_idx: null,
      kv_cache_spec_kind: null,
      kv_cache_spec_sliding_window: null,
    },
    { type: 'BlockRemoved', block_hashes: [BigInt(2 * i + 1)], medium, group_idx: null },
  ];
  const payload = Buffer.from(encodeBatch(1_767_225_600 + i, events, 0, 'map'));
  return [Buffer.from('kv-events'), encodeSeq(BigInt(i)), payload];
}

const series = (samples: PromSample[], name: string) => samples.filter((s) => s.name === name);
const sum = (samples: PromSample[]) => samples.reduce((n, s) => n + s.value, 0);

describe('kvscope collect, a publisher of 300 media', () => {
  it('exports the first 16 media by name and sums the rest into medium "other"', async () => {
    const pub = await StreamPublisher.bind();
    cleanup.push(() => pub.close());
    const child = spawn(
      process.execPath,
      [CLI, 'collect', '--endpoint', pub.endpoint, '--metrics-port', '0'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await pub.subscribed();
    await pub.send(Array.from({ length: MEDIA }, (_, i) => batch(i)));
    await waitFor(() => /metrics on (\S+)/.test(out), 'the collector to print its URL');
    const url = /metrics on (\S+)/.exec(out)?.[1] ?? '';
    const samples = await eventually(
      async () => parsePromText(await (await fetch(url)).text()).samples,
      (x) => sum(series(x, 'kvscope_stored_blocks_total')) === 2 * MEDIA,
      'every stored block on /metrics',
    );
    for (const name of [
      'kvscope_stored_blocks_total',
      'kvscope_removed_blocks_total',
      'kvscope_resident_blocks',
    ]) {
      const media = series(samples, name).map((s) => s.labels.medium);
      expect(media, name).toEqual([
        ...Array.from({ length: MAX_MEDIA_LABELS }, (_, i) => `M${i}`),
        OTHER_MEDIUM,
      ]);
    }
    const other = (name: string) =>
      series(samples, name).find((s) => s.labels.medium === OTHER_MEDIUM)?.value;
    expect(other('kvscope_stored_blocks_total')).toBe(2 * (MEDIA - MAX_MEDIA_LABELS));
    expect(other('kvscope_removed_blocks_total')).toBe(MEDIA - MAX_MEDIA_LABELS);
    expect(other('kvscope_resident_blocks')).toBe(MEDIA - MAX_MEDIA_LABELS);
    expect(sum(series(samples, 'kvscope_removed_blocks_total'))).toBe(MEDIA);
    // The analysis' per-medium series are bounded the same way.
    const restores = series(samples, 'kvscope_announced_hits_total').map((s) => s.labels.medium);
    expect(restores.length).toBeLessThanOrEqual(MAX_MEDIA_LABELS + 1);
    const lifetimeMedia = new Set(
      series(samples, 'kvscope_block_lifetime_seconds_count').map((s) => s.labels.medium),
    );
    expect(lifetimeMedia.size).toBe(MAX_MEDIA_LABELS + 1);
    child.kill('SIGINT');
  }, 60_000);
});
