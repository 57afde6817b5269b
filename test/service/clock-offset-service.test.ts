// Two engines whose clocks are 30 s apart, through the whole service over real ZeroMQ: the one
// behind is charted on the other's seconds (its offset measured at its first batch), so the live
// rates count both, and the recording reopened charts them the same.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import type { KvScopeService } from '../../electron/service/service';
import { loadIntoModel } from '../../electron/session/load';
import { SimPublisher } from '../../electron/sim/publisher';
import { startTestService } from '../support/test-service';
import { waitFor } from '../support/wait-for';

let dir: string;
let sims: SimPublisher[];
let service: KvScopeService;
let lastFrame: () => UpdateFrame | null;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-clock-offset-'));
  sims = await Promise.all(
    [0, -30].map((clockOffsetS, i) =>
      SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 20 + i, clockOffsetS }),
    ),
  );
  ({ service, lastFrame } = await startTestService(dir));
});

afterEach(async () => {
  await service.close();
  for (const s of sims) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const messagesOf = (id: string): number =>
  lastFrame()?.sources.find((s) => s.id === id)?.counters.messages ?? 0;

/** Connects a profile to sim, publishing until its first batch has arrived. */
async function connect(sim: SimPublisher, name: string): Promise<string> {
  const p = await service.saveProfile({
    name,
    endpoint: sim.ranks[0]!.pubEndpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint: null,
    dpRanks: 1,
  });
  await service.connect(p.id);
  const until = Date.now() + 10_000;
  while (messagesOf(p.id) === 0) {
    if (Date.now() > until) throw new Error(`no message of ${name} arrived`);
    await sim.publish(1);
    await new Promise((r) => setTimeout(r, 20));
  }
  return p.id;
}

describe('engines whose clocks are 30 s apart', () => {
  it('chart on the same seconds, live and reopened', async () => {
    const ids = [await connect(sims[0]!, 'on-time'), await connect(sims[1]!, 'behind')];
    const before = ids.map(messagesOf);
    await Promise.all(sims.map((s) => s.publish(20)));
    await waitFor(() => ids.every((id, i) => messagesOf(id) >= before[i]! + 20), 'the batches');
    const series = service.series({ rangeSec: null, maxPoints: 600 });
    // Each one's first second: on its own clock the one behind began 30 s before the other.
    const since = ids.map((id) => series.since?.[series.sources.indexOf(id)]);
    expect(since.every((t) => typeof t === 'number')).toBe(true);
    expect(Math.abs(since[0]! - since[1]!)).toBeLessThanOrEqual(2);
    // The status says it: what the screen's source line reads.
    const offsetOf = (id: string) => lastFrame()?.sources.find((x) => x.id === id)?.clockOffsetS;
    await waitFor(() => offsetOf(ids[1]!) === 30, 'the offset in the status');
    expect(offsetOf(ids[0]!)).toBe(0);
    // Its events keep their own time: 30 s before the other's.
    const tsOf = (id: string) => service.events({ source: id, offset: 0, limit: 1 }).rows[0]!.ts;
    expect(tsOf(ids[0]!) - tsOf(ids[1]!)).toBeGreaterThan(28);
    const file = path.join(dir, 'saved.kvscope.jsonl.gz');
    await service.saveSession(file);
    const reopened = (await loadIntoModel(file)).model.series({ rangeSec: null, maxPoints: 600 });
    expect(ids.map((id) => reopened.since?.[reopened.sources.indexOf(id)])).toEqual(since);
  }, 30_000);
});
