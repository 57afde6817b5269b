// A source given no name takes the one its llm-d topic gives (kv@<pod-ip>:<port>@<model>), and the
// saved session records that name for it, not the endpoint it started with.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { readSession } from '../../electron/session/read-session';
import { KvScopeService } from '../../electron/service/service';
import { SimPublisher } from '../../electron/sim/publisher';
import { eventually } from '../support/wait-for';

const TOPIC = 'kv@10.244.1.17:8000@meta-llama/Llama-3.1-8B-Instruct';
let dir: string;
let sim: SimPublisher;
let service: KvScopeService;
let last: UpdateFrame | null = null;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-llmd-name-'));
  sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    rate: 0,
    seed: 5,
    clearEvery: 0,
    topic: TOPIC,
  });
  const endpoint = sim.ranks[0]?.pubEndpoint ?? '';
  service = await KvScopeService.start({
    dataDir: dir,
    // As `--endpoint` gives it: named by its endpoint, so the topic may name it.
    endpoints: [
      { name: endpoint, endpoint, mode: 'connect', topic: '', replayEndpoint: null, dpRanks: 1 },
    ],
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 20,
  });
  const sub = service.subscribe({
    send: (f) => {
      last = f;
      sub.ack(f.n);
    },
  });
});

afterEach(async () => {
  await service.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

it('records the name an llm-d topic gives a source in the saved session', async () => {
  await eventually(
    async () => {
      await sim.publish(1);
      return last?.sources[0]?.name ?? '';
    },
    (name) => name === 'meta-llama/Llama-3.1-8B-Instruct @ 10.244.1.17:8000',
    'the source to take its name from the topic',
  );
  const saved = path.join(dir, 'saved.kvscope.jsonl.gz');
  await service.saveSession(saved);
  const read = await readSession(saved, () => undefined);
  const source = read.header.sources.find((s) => s.id === 'cli-1');
  expect(source?.name).toBe('meta-llama/Llama-3.1-8B-Instruct @ 10.244.1.17:8000');
  expect(source?.endpoint).toBe(sim.ranks[0]?.pubEndpoint);
});
