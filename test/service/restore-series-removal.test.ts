// The re-store series after a source's removal, over real ZeroMQ into the real service: it starts
// at the first re-store of the source left, not at the removed one's (whose bins go with it).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KvScopeService } from '../../electron/service/service';
import { encodeBatch } from '../../electron/sim/encode';
import type { RawEvent } from '../../electron/sim/types';
import { encodeSeq } from '../../electron/wire/message';
import { StreamPublisher } from '../support/stream-publisher';
import { waitFor } from '../support/wait-for';

let dir: string;
let service: KvScopeService;
const pubs: StreamPublisher[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-series-away-'));
  service = await KvScopeService.start({
    dataDir: dir,
    demo: false,
    persistProfiles: false,
    transport: 'ipc',
    frameIntervalMs: 20,
  });
});

afterEach(async () => {
  await service.close();
  for (const p of pubs.splice(0)) p.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = (h: bigint): RawEvent => ({
  type: 'BlockStored',
  block_hashes: [h],
  parent_block_hash: null,
  token_ids: [1, 2, 3, 4],
  block_size: 4,
  lora_id: null,
  medium: 'GPU',
  lora_name: null,
  extra_keys: null,
  group_idx: null,
  kv_cache_spec_kind: null,
  kv_cache_spec_sliding_window: null,
});
const removed = (h: bigint): RawEvent => ({
  type: 'BlockRemoved',
  block_hashes: [h],
  medium: 'GPU',
  group_idx: null,
});

/**
 * A publisher whose one block is stored at t0, evicted at t0 + 1 and stored again `after` seconds
 * later (1 unless given), all sent at once.
 */
async function restoringEngine(name: string, hash: bigint, t0: number, after = 1): Promise<string> {
  const pub = await StreamPublisher.bind();
  pubs.push(pub);
  const p = await service.saveProfile({
    name,
    endpoint: pub.endpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint: null,
    dpRanks: 1,
  });
  const joined = pub.subscribed();
  await service.connect(p.id);
  await joined;
  const events = [stored(hash), removed(hash), stored(hash)];
  const times = [t0, t0 + 1, t0 + 1 + after];
  await pub.send(
    events.map((e, i) => [
      Buffer.from('kv'),
      encodeSeq(BigInt(i)),
      Buffer.from(encodeBatch(times[i] ?? t0, [e], 0, 'map')),
    ]),
  );
  return p.id;
}

describe('the re-store series, when a source is removed', () => {
  it("starts at the first re-store of the sources left, not at the removed one's", async () => {
    const sentAt = Date.now() / 1000;
    const a = await restoringEngine('engine-a', 11n, 1_767_225_600);
    // Its re-store 100 s after its eviction, in its own time.
    await restoringEngine('engine-b', 22n, 1_767_225_700, 100);
    await waitFor(() => service.insights().totals.restores === 2, 'both re-stores');
    // Both engines' clocks are months behind KV Scope's: their batches are charted on KV Scope's,
    // each engine's first batch at about its arrival, as the Overview's rates are.
    const both = service.insights().restoreSeries;
    expect(Math.abs((both.startS ?? 0) - (sentAt + 2))).toBeLessThanOrEqual(5);
    expect(both.restores.reduce((x, y) => x + y, 0)).toBe(2);
    await service.deleteProfile(a);
    const left = service.insights().restoreSeries;
    // Now from b's re-store on, about 100 s after a's was.
    expect((left.startS ?? 0) - (both.startS ?? 0)).toBeGreaterThanOrEqual(98);
    expect((left.startS ?? 0) - (both.startS ?? 0)).toBeLessThanOrEqual(104);
    expect(left.restores).toEqual([1]);
  });
});
