// `kvscope collect --group N` over a real ZeroMQ socket: a hybrid model's engine publishes each
// block once per KV cache group; counted together every second group's store is an announced hit,
// while the collector given one group counts that group's hits and resident blocks alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import type { Profile } from '../../shared/api-types';
import { Collector } from '../../electron/metrics/collector';
import { encodeBatch } from '../../electron/sim/encode';
import { seqFrame } from '../../electron/sim/rank';
import type { RawBlockRemoved, RawBlockStored } from '../../electron/sim/types';

const T0 = 1_767_225_600;
const REQUESTS = 20;

/** One request's two blocks cached in group `group` (the full-attention group or the window's). */
const store = (i: number, group: number): RawBlockStored => ({
  type: 'BlockStored',
  block_hashes: [BigInt(2 * i + 1000), BigInt(2 * i + 1001)],
  parent_block_hash: null,
  token_ids: Array.from({ length: 32 }, (_, t) => t),
  block_size: 16,
  lora_id: null,
  medium: 'GPU',
  lora_name: null,
  extra_keys: null,
  group_idx: group,
  kv_cache_spec_kind: group === 0 ? 'full_attention' : 'sliding_window',
  kv_cache_spec_sliding_window: group === 0 ? null : 128,
});

let pub: Publisher;
const collectors: Collector[] = [];

beforeAll(async () => {
  pub = new Publisher({ linger: 0 });
  await pub.bind('tcp://127.0.0.1:*');
});

afterAll(async () => {
  await Promise.all(collectors.map((c) => c.close()));
  pub.close();
});

async function collector(group?: number): Promise<Collector> {
  const profile: Profile = {
    id: 'hybrid',
    name: 'hybrid',
    endpoint: pub.lastEndpoint as string,
    mode: 'connect',
    topic: '',
    replayEndpoint: null,
    dpRanks: 1,
  };
  const c = await Collector.start({
    profiles: [profile],
    recordDir: null,
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    ...(group === undefined ? {} : { group }),
  });
  collectors.push(c);
  return c;
}

/** A metric's value for the hybrid source's GPU, from a scrape. */
async function metric(c: Collector, name: string): Promise<number> {
  const text = await (await fetch(c.server.url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('medium="GPU"'));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

describe('kvscope collect --group', () => {
  it("counts one group's hits and resident blocks, where all groups together count each second store a hit and one group's eviction as the block's", async () => {
    const all = await collector();
    const full = await collector(0);
    // Both subscribed before anything is published (a PUB drops what no one took yet).
    await new Promise((r) => setTimeout(r, 500));
    const topic = Buffer.from('kv-events');
    for (let i = 0; i < REQUESTS; i += 1) {
      const payload = encodeBatch(T0 + i, [store(i, 0), store(i, 1)], 0, 'map');
      await pub.send([topic, seqFrame(BigInt(i)), payload]);
    }
    // The sliding window's group evicts the first request's blocks; the full group keeps them.
    const evicted: RawBlockRemoved = {
      type: 'BlockRemoved',
      block_hashes: [1000n, 1001n],
      medium: 'GPU',
      group_idx: 1,
    };
    const removal = encodeBatch(T0 + REQUESTS, [evicted], 0, 'map');
    await pub.send([topic, seqFrame(BigInt(REQUESTS)), removal]);
    await expect
      .poll(() => all.sources[0]?.status().counters.messages, { timeout: 10_000 })
      .toBe(REQUESTS + 1);
    await expect
      .poll(() => full.sources[0]?.status().counters.messages, { timeout: 10_000 })
      .toBe(REQUESTS + 1);
    expect(await metric(all, 'kvscope_announced_hits_total')).toBe(2 * REQUESTS);
    expect(await metric(full, 'kvscope_announced_hits_total')).toBe(0);
    // The dashboard's hit ratio, hits / (hits + new stores), is each analysis' own: 0.5 counted
    // together (each second store a hit), and none for the full group alone, whose every store
    // is new (the stream's stored blocks count every group: twice the group's).
    expect(await metric(all, 'kvscope_new_stores_total')).toBe(2 * REQUESTS);
    expect(await metric(full, 'kvscope_new_stores_total')).toBe(2 * REQUESTS);
    expect(await metric(all, 'kvscope_resident_blocks')).toBe(2 * REQUESTS - 2);
    expect(await metric(full, 'kvscope_resident_blocks')).toBe(2 * REQUESTS);
  }, 30_000);
});
