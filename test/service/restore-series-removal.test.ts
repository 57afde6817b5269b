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

/** A publisher whose one block is stored at t0, evicted at t0 + 1 and stored again at t0 + 2. */
async function restoringEngine(name: string, hash: bigint, t0: number): Promise<string> {
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
  await pub.send(
    events.map((e, i) => [
      Buffer.from('kv'),
      encodeSeq(BigInt(i)),
      Buffer.from(encodeBatch(t0 + i, [e], 0, 'map')),
    ]),
  );
  return p.id;
}

describe('the re-store series, when a source is removed', () => {
  it("starts at the first re-store of the sources left, not at the removed one's", async () => {
    const a = await restoringEngine('engine-a', 11n, 1_767_225_600);
    await restoringEngine('engine-b', 22n, 1_767_225_700);
    await waitFor(() => service.insights().totals.restores === 2, 'both re-stores');
    expect(service.insights().restoreSeries.startS).toBe(1_767_225_602);
    await service.deleteProfile(a);
    const left = service.insights().restoreSeries;
    expect(left.startS).toBe(1_767_225_702);
    expect(left.restores).toEqual([1]);
  });
});
