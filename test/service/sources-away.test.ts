// Truth when sources go away or start again: a removed source leaves every total, a disconnected
// one stays as stale, a restarted engine's resident count is the new stream's alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import type { KvScopeService } from '../../electron/service/service';
import { SimPublisher } from '../../electron/sim/publisher';
import { startTestService } from '../support/test-service';
import { waitFor } from '../support/wait-for';

let dir: string;
let sim: SimPublisher;
let service: KvScopeService;
let lastFrame: () => UpdateFrame | null;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-away-'));
  sim = await SimPublisher.start({
    format: 'array',
    hash: 'int',
    rate: 0,
    seed: 11,
    clearEvery: 0,
  });
  ({ service, lastFrame } = await startTestService(dir));
});

afterEach(async () => {
  await service.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Connects a profile to a simulator and publishes until its first batch has arrived. */
async function connectSim(
  publisher = sim,
  name = 'engine-a',
  { replay = false } = {},
): Promise<string> {
  const rank = publisher.ranks[0];
  if (!rank) throw new Error('no sim rank');
  const p = await service.saveProfile({
    name,
    endpoint: rank.pubEndpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint: replay ? rank.replayEndpoint : null,
    dpRanks: 1,
  });
  await service.connect(p.id);
  await untilReceived(p.id, publisher);
  return p.id;
}

/** Publishes a batch at a time until one more than `messages` has reached the source. */
async function untilReceived(id: string, publisher = sim, messages = 0): Promise<void> {
  const until = Date.now() + 10_000;
  while ((lastFrame()?.sources.find((s) => s.id === id)?.counters.messages ?? 0) <= messages) {
    if (Date.now() > until) throw new Error(`no message of ${id} arrived`);
    await publisher.publish(1);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Publishes n batches and waits until the service has taken them all. */
async function publishAndSettle(n: number): Promise<void> {
  const before = lastFrame()?.sources[0]?.counters.messages ?? 0;
  await sim.publish(n);
  await waitFor(
    () => (lastFrame()?.sources[0]?.counters.messages ?? 0) >= before + n,
    `${n} batches`,
  );
}

/**
 * A simulator with a replay endpoint, connected with it, restarted (so its truth and what the
 * service received start together) and `batches` published until the service shows its resident.
 */
async function connectReplaying(
  seed: number,
  batches: number,
): Promise<{ replaying: SimPublisher; id: string; resident: () => number }> {
  const replaying = await SimPublisher.start({
    format: 'array',
    hash: 'int',
    rate: 0,
    seed,
    replay: true,
  });
  const resident = (): number =>
    Object.values(replaying.stats().ranks[0]?.resident ?? {}).reduce((a, b) => a + b, 0);
  try {
    const id = await connectSim(replaying, 'engine-r', { replay: true });
    replaying.restart();
    await replaying.publish(batches);
    await expect.poll(() => service.kpis().residentBlocks, { timeout: 5000 }).toBe(resident());
    return { replaying, id, resident };
  } catch (e) {
    await replaying.close();
    throw e;
  }
}

/**
 * Disconnects source `id`, runs `meanwhile`, connects it again and publishes until it receives,
 * then 20 batches more; returns the messages it had received before.
 */
async function awayAndBack(
  id: string,
  publisher: SimPublisher,
  meanwhile: () => Promise<void>,
): Promise<number> {
  await service.disconnect(id);
  await meanwhile();
  const before = lastFrame()?.sources.find((s) => s.id === id)?.counters.messages ?? 0;
  await service.connect(id);
  await untilReceived(id, publisher, before);
  await publisher.publish(20);
  return before;
}

const simResident = (): number =>
  Object.values(sim.stats().ranks[0]?.resident ?? {}).reduce((a, b) => a + b, 0);

describe('sources that go away', () => {
  it("moves the frames' now on while a source is silent, as the ages of the status strip do", async () => {
    await connectSim();
    await waitFor(() => (lastFrame()?.nowTs ?? null) !== null, 'a frame with a now');
    const first = lastFrame()!.nowTs!;
    // Nothing published for 1.5 s: the events' and chains' "how long ago" is read against this.
    await new Promise((r) => setTimeout(r, 1500));
    await waitFor(() => lastFrame()!.nowTs! - first >= 1, 'the now moving on', 3000);
    expect(lastFrame()!.nowTs! - first).toBeLessThan(5);
  });

  it('keeps a disconnected source as stale, with its resident blocks named as stale', async () => {
    const id = await connectSim();
    await publishAndSettle(200);
    const resident = service.kpis().residentBlocks;
    expect(resident).toBeGreaterThan(0);
    await service.disconnect(id);
    await waitFor(() => lastFrame()?.sources[0]?.state === 'closed', 'the closed state');
    const k = service.kpis();
    expect(k.residentBlocks).toBe(resident);
    expect(k.staleResidentBlocks).toBe(resident);
    expect(lastFrame()?.sources[0]).toMatchObject({ stale: true, residentBlocks: resident });
    expect(lastFrame()?.sources[0]?.ageSec).toBeGreaterThanOrEqual(0);
  });

  it('takes a source removed after a disconnect out of every total too', async () => {
    const id = await connectSim();
    await publishAndSettle(100);
    await service.disconnect(id);
    expect(service.kpis().staleResidentBlocks).toBeGreaterThan(0);
    await service.deleteProfile(id);
    expect([service.kpis().residentBlocks, service.kpis().storedBlocks]).toEqual([0, 0]);
    await waitFor(() => lastFrame()?.sources.length === 0, 'no source in the frame');
  });

  it('takes a removed source out of every total', async () => {
    const id = await connectSim();
    await publishAndSettle(200);
    expect(service.kpis().residentBlocks).toBeGreaterThan(0);
    await service.deleteProfile(id);
    const k = service.kpis();
    expect([k.residentBlocks, k.storedBlocks, k.events, k.staleResidentBlocks]).toEqual([
      0, 0, 0, 0,
    ]);
    await waitFor(() => lastFrame()?.sources.length === 0, 'no source in the frame');
    expect(service.series({ rangeSec: null }).sources).toEqual([]);
    const insights = service.insights();
    expect([insights.sources, insights.whatIf, insights.totals.newStores]).toEqual([[], [], 0]);
  });

  it('takes a removed source out of the event log and its exports, while another stays', async () => {
    const id = await connectSim();
    await publishAndSettle(50);
    // A second source that stays: its events are the log's after the removal.
    const other = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 12 });
    try {
      const kept = await connectSim(other, 'engine-b');
      const all = service.events({ offset: 0, limit: 1 }).total;
      const ofA = service.events({ offset: 0, limit: 1, source: id }).total;
      expect(ofA).toBeGreaterThan(0);
      expect(all).toBeGreaterThan(ofA);
      await service.deleteProfile(id);
      const after = service.events({ offset: 0, limit: 100_000 });
      expect(after.total).toBe(all - ofA);
      expect(after.total).toBe(service.kpis().events);
      expect(after.rows.every((r) => r.source === kept)).toBe(true);
      expect(service.events({ offset: 0, limit: 1, source: id }).total).toBe(0);
      const file = path.join(dir, 'events.json');
      await service.exportEvents(file, {}, 'json');
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(id);
      expect(text).toContain(kept);
    } finally {
      await other.close();
    }
  });

  it('marks a removed source in a saved session, and an opened one takes it out there too', async () => {
    const removed = await connectSim();
    await publishAndSettle(50);
    const other = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 13 });
    try {
      const kept = await connectSim(other, 'engine-b');
      const before = Date.now() / 1000;
      await service.deleteProfile(removed);
      const live = service.kpis();
      expect(live.events).toBeGreaterThan(0);
      const file = path.join(dir, 'saved.kvscope.jsonl.gz');
      await service.saveSession(file);

      // The file keeps the removed source's events, and says where it was removed.
      const lines = gunzipSync(readFileSync(file)).toString('utf8').trim().split('\n');
      const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(objects.some((o) => o.k === 'event' && o.source === removed)).toBe(true);
      const mark = objects.findIndex(
        (o) => o.k === 'source' && o.id === removed && 'removedAt' in o,
      );
      expect(mark).toBeGreaterThan(0);
      expect(objects[mark]).toMatchObject({ name: 'engine-a' });
      expect(objects[mark]?.removedAt).toBeGreaterThanOrEqual(before);

      // Opened, it shows what live showed: the removed source in no total, named as removed.
      expect(await service.openSession(file, 'saved')).toMatchObject({ status: 'done' });
      const opened = service.kpis();
      expect([opened.events, opened.storedBlocks, opened.residentBlocks]).toEqual([
        live.events,
        live.storedBlocks,
        live.residentBlocks,
      ]);
      await waitFor(() => lastFrame()?.view.kind === 'session', 'the opened session in a frame');
      const view = lastFrame()?.view;
      expect(view?.sources.map((s) => s.id)).toEqual([kept]);
      expect(view?.removedSources).toEqual([
        { id: removed, name: 'engine-a', removedAt: objects[mark]?.removedAt },
      ]);
      expect(service.insights().sources.map((s) => s.source)).toEqual([kept]);
    } finally {
      await other.close();
    }
  });

  it('goes on from where a disconnected source stopped: what it missed is recovered over replay', async () => {
    const { replaying, id, resident } = await connectReplaying(14, 300);
    try {
      // Published while nobody listened: every one of these removes or stores blocks.
      const before = await awayAndBack(id, replaying, () => replaying.publish(400));
      // Taken up as a new stream, the 400 were never asked for and the old blocks stayed beside
      // the new ones (twice the engine's cache).
      await expect.poll(() => service.kpis().residentBlocks, { timeout: 5000 }).toBe(resident());
      const c = lastFrame()?.sources.find((s) => s.id === id)?.counters;
      expect(c?.recovered).toBeGreaterThanOrEqual(400);
      expect([c?.lost, c?.resets]).toEqual([0, 1]);
      expect(c?.messages).toBeGreaterThan(before);
    } finally {
      await replaying.close();
    }
  });

  it('reads an engine restarted while disconnected, whose new seqs passed the old ones, as a restart', async () => {
    const { replaying, id, resident } = await connectReplaying(16, 100);
    try {
      const resets = lastFrame()?.sources.find((s) => s.id === id)?.counters.resets ?? 0;
      // A new engine process meanwhile, past the old one's last seq by the time we listen again.
      await awayAndBack(id, replaying, async () => {
        replaying.restart();
        await replaying.publish(300);
      });
      // Read as a gap of the old run, the new engine's batches were "recovered" into it and its
      // blocks added to the old engine's: twice the cache.
      await expect.poll(() => service.kpis().residentBlocks, { timeout: 5000 }).toBe(resident());
      const c = lastFrame()?.sources.find((s) => s.id === id)?.counters;
      expect(c?.resets).toBe(resets + 1);
      expect(c?.lost).toBe(0);
      expect(
        service.series({ rangeSec: null }).markers.filter((m) => m.kind === 'reset'),
      ).toHaveLength(resets + 1);
    } finally {
      await replaying.close();
    }
  });

  it('counts what a reconnected source missed without replay as lost, and an engine restarted meanwhile as a restart', async () => {
    const id = await connectSim();
    sim.restart();
    await publishAndSettle(200);
    await service.disconnect(id);
    await sim.publish(150);
    const received = lastFrame()?.sources[0]?.counters.messages ?? 0;
    await service.connect(id);
    await untilReceived(id, sim, received);
    const c = lastFrame()?.sources[0]?.counters;
    expect(c?.gaps).toBe(1);
    expect(c?.lost).toBeGreaterThanOrEqual(150);
    expect(c?.resets).toBe(1);

    await service.disconnect(id);
    sim.restart();
    await sim.publish(30);
    const messages = lastFrame()?.sources[0]?.counters.messages ?? 0;
    await service.connect(id);
    await untilReceived(id, sim, messages);
    await sim.publish(20);
    await waitFor(
      () => (lastFrame()?.sources[0]?.counters.resets ?? 0) === 2,
      'the restart meanwhile',
    );
    // A restart the sequencer sees is a gap from seq 0 too: the first 30 were never received.
    await expect
      .poll(() => service.series({ rangeSec: null }).markers.filter((m) => m.kind === 'reset'))
      .toHaveLength(2);
  });

  it('takes a connection edited to another engine as a new stream: the old blocks go', async () => {
    const id = await connectSim();
    await publishAndSettle(100);
    expect(service.kpis().residentBlocks).toBeGreaterThan(0);
    const other = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 15 });
    try {
      const profile = service.listProfiles().find((p) => p.id === id);
      if (!profile) throw new Error('no profile');
      await service.saveProfile({ ...profile, endpoint: other.ranks[0]?.pubEndpoint ?? '' });
      // Kept, engine-a's blocks would be counted as the new engine's from its first batch on.
      expect(service.kpis().residentBlocks).toBe(0);
      await waitFor(() => lastFrame()?.sources[0]?.counters.resets === 1, 'the restart counted');
      expect(
        service.series({ rangeSec: null }).markers.filter((m) => m.kind === 'reset'),
      ).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('counts a restarted engine from empty: resident equals the new stream alone', async () => {
    await connectSim();
    // Batches published before the subscription landed never arrived: restart the engine so the
    // simulator's truth and what the service received start together.
    sim.restart();
    await publishAndSettle(300);
    await waitFor(() => (lastFrame()?.sources[0]?.counters.resets ?? 0) === 1, 'the first reset');
    // The sequencer may still hold the newest batches while it tells a restart from a gap.
    await expect.poll(() => service.kpis().residentBlocks, { timeout: 5000 }).toBe(simResident());
    sim.restart();
    await publishAndSettle(40);
    await waitFor(() => (lastFrame()?.sources[0]?.counters.resets ?? 0) === 2, 'the second reset');
    await expect.poll(() => service.kpis().residentBlocks, { timeout: 5000 }).toBe(simResident());
    expect(simResident()).toBeGreaterThan(0);
    expect(
      service.series({ rangeSec: null }).markers.filter((m) => m.kind === 'reset'),
    ).toHaveLength(2);
  });
});
