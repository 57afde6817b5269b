// Connections are kept across restarts, and a connection that was connected connects again.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveSession } from '../../electron/service/live-session';
import { ProfileStore } from '../../electron/service/profile-store';
import { KvScopeService } from '../../electron/service/service';
import { SimPublisher } from '../../electron/sim/publisher';
import { connectTo, latestFrame } from '../support/test-service';

let dir: string;
let sim: SimPublisher;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-profiles-'));
  sim = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 5 });
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const start = () =>
  KvScopeService.start({ dataDir: dir, demo: 'auto', transport: 'ipc', frameIntervalMs: 20 });

const statesOf = (service: KvScopeService) => {
  const states: string[] = [];
  const sub = service.subscribe({
    send: (frame) => {
      states.splice(0, states.length, ...frame.sources.map((s) => `${s.name}:${s.state}`));
      sub.ack(frame.n);
    },
  });
  return states;
};

describe('connection profiles', () => {
  it('keeps profiles across restarts and reconnects the ones that were connected', async () => {
    const first = await start();
    // Nothing configured yet: the demo runs.
    expect(first.listProfiles().map((p) => p.id)).toEqual(['demo']);
    const saved = await first.saveProfile(connectTo('engine', sim.ranks[0]?.pubEndpoint ?? ''));
    await first.connect(saved.id);
    await first.setDemo(false);
    await first.close();

    const second = await start();
    const states = statesOf(second);
    expect(second.listProfiles()).toEqual([saved]);
    await expect
      .poll(() => states.join(), { timeout: 5000 })
      .toMatch(/^engine:(waiting|connected|connecting)$/);

    // Renaming a connected profile shows its new name (in place: see the next test).
    await second.saveProfile({ ...saved, name: 'engine 0' });
    await expect.poll(() => states.join(), { timeout: 5000 }).toMatch(/^engine 0:/);
    await second.disconnect(saved.id);
    await second.close();

    const third = await start();
    expect(third.listProfiles().map((p) => p.name)).toContain('engine 0');
    // Disconnected at exit and nothing else configured: the demo runs again.
    expect(third.listProfiles().map((p) => p.id)).toContain('demo');
    await third.close();
  });

  it('renames a connected profile in place: the same subscription, no batch lost', async () => {
    const fast = await SimPublisher.start({ format: 'array', hash: 'int', rate: 200, seed: 6 });
    const service = await KvScopeService.start({
      dataDir: mkdtempSync(path.join(dir, 'rename-')),
      demo: false,
      persistProfiles: false,
      transport: 'ipc',
      frameIntervalMs: 20,
    });
    try {
      const saved = await service.saveProfile(connectTo('fast', fast.ranks[0]?.pubEndpoint ?? ''));
      await service.connect(saved.id);
      const frame = latestFrame(service);
      const health = () => frame()?.sources.find((h) => h.id === saved.id);
      await expect
        .poll(() => health()?.counters.messages ?? 0, { timeout: 5000 })
        .toBeGreaterThan(20);
      const subscription = health()?.subscription;
      for (const name of ['fast 1', 'fast 2', 'fast 3', 'fast 4']) {
        const messages = health()?.counters.messages ?? 0;
        await service.saveProfile({ ...saved, name });
        await expect.poll(() => health()?.name).toBe(name);
        // Batches go on arriving between the renames.
        await expect.poll(() => health()?.counters.messages ?? 0).toBeGreaterThan(messages + 5);
      }
      const after = health();
      expect(after?.subscription).toBe(subscription);
      expect(after?.counters).toMatchObject({ gaps: 0, lost: 0, resets: 0 });
      // The view (its filters and legends) names the source by its new name too.
      expect(frame()?.view.sources.find((s) => s.id === saved.id)?.name).toBe('fast 4');
      // A change of what it subscribes to still makes a new subscription.
      await service.saveProfile({ ...saved, name: 'fast 4', topic: 'kv' });
      await expect.poll(() => health()?.subscription).not.toBe(subscription);
    } finally {
      await service.close();
      await fast.close();
    }
  });

  it('sets a corrupt profiles file aside and says so, instead of failing to start', async () => {
    const file = path.join(dir, 'profiles.json');
    writeFileSync(file, '{ not json');
    const service = await start();
    let problems: string[] = [];
    const sub = service.subscribe({
      send: (frame) => {
        problems = frame.view.problems;
        sub.ack(frame.n);
      },
    });
    await expect
      .poll(() => problems.join(), { timeout: 5000 })
      .toMatch(/could not read .*profiles\.json/);
    expect(readFileSync(`${file}.corrupt`, 'utf8')).toBe('{ not json');
    await service.close();
  });

  it('starts one simulator when the demo is switched on twice at once', async () => {
    const service = await KvScopeService.start({
      dataDir: path.join(dir, 'demo-twice'),
      demo: false,
      persistProfiles: false,
      transport: 'ipc',
    });
    const starts = vi.spyOn(SimPublisher, 'start');
    try {
      await Promise.all([service.setDemo(true), service.setDemo(true)]);
      // Simulators started, not calls: the demo takes a random base port and tries another
      // when one of its four is taken (other tests bind ports all the time), one call each.
      const started = starts.mock.settledResults.filter((r) => r.type === 'fulfilled');
      expect(started).toHaveLength(1);
      expect(service.listProfiles().map((p) => p.id)).toEqual(['demo']);
    } finally {
      await service.close();
    }
  });

  it('closes what it opened when a command-line endpoint cannot connect', async () => {
    const closes = vi.spyOn(LiveSession.prototype, 'close');
    await expect(
      KvScopeService.start({
        dataDir: path.join(dir, 'bad-endpoint'),
        endpoints: [
          {
            name: 'bad',
            endpoint: 'tcp://127.0.0.1:99999',
            mode: 'connect',
            topic: '',
            replayEndpoint: null,
            dpRanks: 1,
          },
        ],
        demo: false,
        persistProfiles: false,
        transport: 'ipc',
      }),
    ).rejects.toThrow(/port must be from 1 to 65535/);
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it('keeps every one of twenty concurrent saves, and leaves no temp file behind', async () => {
    const folder = path.join(dir, 'twenty');
    const file = path.join(folder, 'profiles.json');
    const store = new ProfileStore(file);
    const saves = Array.from({ length: 20 }, (_, i) =>
      store.save(connectTo(`engine ${i}`, `tcp://127.0.0.1:${5557 + i}`)),
    );
    const settled = await Promise.allSettled([...saves, store.setConnected('x', true)]);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    expect(readdirSync(folder)).toEqual(['profiles.json']);
    const reread = new ProfileStore(file);
    await reread.load();
    expect(reread.loadProblem).toBeNull();
    expect(
      reread
        .list()
        .map((p) => p.name)
        .sort(),
    ).toEqual(Array.from({ length: 20 }, (_, i) => `engine ${i}`).sort());
    expect(reread.connectedIds()).toEqual(['x']);
  });
  it('takes the ranks an edit drops out of every total, instead of leaving them stale for good', async () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'kvscope-ranks-'));
    const two = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 7, dp: 2 });
    const service = await KvScopeService.start({
      dataDir: d,
      demo: false,
      transport: 'ipc',
      frameIntervalMs: 20,
    });
    const frame = latestFrame(service);
    const residentOf = (rank: RegExp): number =>
      frame()?.sources.find((s) => rank.test(s.name))?.residentBlocks ?? 0;
    try {
      const input = {
        name: 'e',
        mode: 'connect' as const,
        topic: '',
        replayEndpoint: null,
        endpoint: two.ranks[0]?.pubEndpoint ?? '',
      };
      const p = await service.saveProfile({ ...input, dpRanks: 2 });
      await service.connect(p.id);
      // Both ranks hold blocks; then the connection is edited down to one rank.
      await expect
        .poll(
          async () => {
            await two.publish(1);
            return Math.min(residentOf(/#1$/), residentOf(/#0$|^e$/));
          },
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
      await service.saveProfile({ ...input, id: p.id, dpRanks: 1 });
      await expect
        .poll(() => frame()?.sources.map((s) => s.name), { timeout: 5000 })
        .toEqual(['e']);
      // Settings its connect would refuse (ranks from a wildcard port) are still saved, as ever.
      const wild = {
        ...input,
        name: 'w',
        mode: 'bind' as const,
        endpoint: 'tcp://*:*',
        dpRanks: 2,
      };
      await expect(service.saveProfile(wild)).resolves.toMatchObject({ endpoint: 'tcp://*:*' });
      // Rank 1 left every total: what is resident is rank 0's alone.
      await expect
        .poll(() => frame()?.kpis.residentBlocks, { timeout: 5000 })
        .toBe(residentOf(/^e$/));
    } finally {
      await service.close();
      await two.close();
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('refuses a second connection to an endpoint already subscribed with an overlapping topic', async () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'kvscope-twice-'));
    const service = await KvScopeService.start({
      dataDir: d,
      demo: false,
      transport: 'ipc',
      frameIntervalMs: 20,
    });
    const states = statesOf(service);
    try {
      const endpoint = sim.ranks[0]?.pubEndpoint ?? '';
      const input = { mode: 'connect' as const, replayEndpoint: null, dpRanks: 1, endpoint };
      const a = await service.saveProfile({ ...input, name: 'a', topic: '' });
      await service.connect(a.id);
      // Every batch would come twice, and every total count it twice. A new connection connects
      // as it is added: refused, it is not saved either.
      const twice = `${endpoint} is already subscribed by the connection "a": a second subscription would count every block it publishes twice`;
      await expect(service.saveProfile({ ...input, name: 'b', topic: 'kv' })).rejects.toThrow(
        twice,
      );
      // What would let the two share it: "different topics" would not ('kv' differs from '').
      await expect(service.saveProfile({ ...input, name: 'b', topic: 'kv' })).rejects.toThrow(
        '(disconnect that one first, or give them two topics neither of which starts the other; an empty topic takes every topic)',
      );
      expect(service.listProfiles().map((p) => p.name)).toEqual(['a']);
      await expect.poll(() => states.join(), { timeout: 5000 }).toMatch(/^a:[a-z]+$/);
      // Once the first is disconnected, the second is added and connects; the first, saved,
      // is refused at its connect now.
      await service.disconnect(a.id);
      const b = await service.saveProfile({ ...input, name: 'b', topic: 'kv' });
      await service.connect(b.id);
      await expect.poll(() => states.join(), { timeout: 5000 }).toMatch(/(^|,)b:/);
      await expect(service.connect(a.id)).rejects.toThrow(
        `${endpoint} is already subscribed by the connection "b"`,
      );
      // An edit of a connected connection onto an endpoint another one subscribes to is refused
      // before anything changes: it stays saved as it was, and connected.
      const other = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 6 });
      try {
        const c = await service.saveProfile({
          ...input,
          name: 'c',
          topic: '',
          endpoint: other.ranks[0]?.pubEndpoint ?? '',
        });
        await service.connect(c.id);
        await expect.poll(() => states.join(), { timeout: 5000 }).toMatch(/(^|,)c:/);
        await expect(
          service.saveProfile({ ...input, id: c.id, name: 'c', topic: 'kv' }),
        ).rejects.toThrow(`${endpoint} is already subscribed by the connection "b"`);
        expect(service.listProfiles().find((p) => p.id === c.id)?.endpoint).toBe(
          other.ranks[0]?.pubEndpoint,
        );
        expect(states.filter((s) => s.startsWith('c:'))).toHaveLength(1);
        expect(states.join()).not.toMatch(/(^|,)c:disconnected/);
        // A connection may still be edited onto its own endpoint (a new name, say).
        await service.saveProfile({
          ...input,
          id: c.id,
          name: 'c renamed',
          topic: '',
          endpoint: other.ranks[0]?.pubEndpoint ?? '',
        });
        await expect.poll(() => states.join(), { timeout: 5000 }).toMatch(/(^|,)c renamed:/);
      } finally {
        await other.close();
      }
    } finally {
      await service.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
