import { existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import { expandProfile, type SourceConfig } from '../../electron/ingest/source-config';
import { SimPublisher } from '../../electron/sim/publisher';
import type { SimOptions } from '../../electron/sim/types';
import { DecimalHashes, hashTexts } from '../../shared/hash-list';
import { waitFor } from '../support/wait-for';
import { freePorts, recordingSink, sourceConfig, warmUp } from './helpers';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function sim(opts: Partial<SimOptions> = {}): Promise<SimPublisher> {
  const s = await SimPublisher.start({ format: 'map', hash: 'int', seed: 7, ...opts });
  open.push(s);
  return s;
}

async function source(c: SourceConfig, opts = {}) {
  const rec = recordingSink();
  const s = new KvSource(c, rec.sink, opts);
  open.push(s);
  await s.start();
  return { s, rec };
}

/** Publishes until the source has received a batch (ZeroMQ's slow joiner drops the first). */
function heard(p: SimPublisher, rec: { seqs: unknown[] }): Promise<void> {
  return warmUp(
    () => p.publish(),
    () => rec.seqs.length,
  );
}

describe('KvSource over real ZeroMQ', () => {
  it('connects to a binding publisher and delivers every event of every batch in order', async () => {
    const p = await sim();
    const { s, rec } = await source(sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint }));
    await heard(p, rec);
    const first = rec.seqs[0]!;
    await p.publish(50);
    const lastSeq = p.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === lastSeq, 'the last batch');
    expect(rec.seqs).toEqual(Array.from({ length: lastSeq - first + 1 }, (_, i) => first + i));
    const st = s.status();
    expect(st.state).toBe('connected');
    expect(st.counters.gaps).toBe(0);
    expect(st.counters.events).toBe(rec.events.length);
    expect(st.counters.messages).toBe(rec.seqs.length);
    expect(st.fingerprint?.events).toContain('map');
    expect(rec.events.every((e) => e.source === 'src' && e.dp_rank === 0)).toBe(true);
  });

  it('delivers u64 hashes as their decimal parts (the decoder makes no text)', async () => {
    const p = await sim();
    const endpoint = p.ranks[0]!.pubEndpoint;
    const byParts = await source(sourceConfig({ endpoint }));
    await heard(p, byParts.rec);
    await p.publish(20);
    const lastSeq = p.stats().ranks[0]!.lastSeq!;
    await waitFor(() => byParts.rec.seqs.at(-1) === lastSeq, 'the last batch');
    const parts = byParts.rec.events.flatMap((e) =>
      e.seq === lastSeq && e.event.type !== 'AllBlocksCleared' ? [e.event.block_hashes] : [],
    );
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((l) => l instanceof DecimalHashes)).toBe(true);
    // Their texts are the canonical decimals of u64s (the decoder's own tests compare them).
    for (const h of parts.flatMap((l) => hashTexts(l)))
      expect(BigInt(h) < 2n ** 64n && `${BigInt(h)}` === h).toBe(true);
  });

  it('handles every message it received before close(), though it handles them in bursts', async () => {
    const p = await sim();
    const rec = recordingSink();
    // beforeReceive runs before each receive: its calls less one are the messages received.
    let calls = 0;
    let closeAfter = Infinity;
    let closing: Promise<void> | null = null;
    const s: KvSource = new KvSource(
      sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint }),
      rec.sink,
      {
        beforeReceive: () => {
          calls += 1;
          if (calls - 1 === closeAfter) closing = s.close();
          return null;
        },
      },
    );
    open.push(s);
    await s.start();
    await heard(p, rec);
    await waitFor(() => rec.seqs.length === calls - 1, 'the warm-up handled');
    // Received from here on wait in a burst until the loop runs dry; close() comes mid-burst.
    closeAfter = calls - 1 + 40;
    await p.publish(200);
    await waitFor(() => closing !== null, 'the close');
    await closing;
    expect(rec.seqs.length).toBe(closeAfter);
    expect(s.status().counters.messages).toBe(closeAfter);
  });

  it('a sink that throws ends the reading with the error; nothing escapes', async () => {
    const p = await sim();
    let batches = 0;
    const s = new KvSource(sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint }), {
      record: (r) => {
        if (r.k !== 'batch') return;
        batches += 1;
        if (batches === 3) throw new Error('the sink broke');
      },
    });
    open.push(s);
    await s.start();
    await warmUp(
      () => p.publish(),
      () => batches,
    );
    await p.publish(20);
    await waitFor(() => s.status().state === 'error', 'the error state');
    expect(s.status().lastError).toMatch(/^receiving from tcp:\/\/\S+ failed: the sink broke$/);
    await p.publish(20);
    await new Promise((r) => setTimeout(r, 200));
    expect(batches).toBe(3);
  });

  it('binds for a publisher that connects out (llm-d style)', async () => {
    const port = await freePorts();
    const endpoint = `tcp://127.0.0.1:${port}`;
    const { s, rec } = await source(sourceConfig({ endpoint, mode: 'bind' }));
    expect(s.status().state).toBe('waiting');
    const p = await sim({ bind: false, connectTo: endpoint, format: 'array' });
    await heard(p, rec);
    await p.publish(10);
    const lastSeq = p.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === lastSeq, 'the last batch');
    expect(s.status().state).toBe('connected');
    expect(s.status().fingerprint?.events).toContain('array');
  });

  it('a bind on a port in use is an error state with a clear message', async () => {
    const port = await freePorts();
    const endpoint = `tcp://127.0.0.1:${port}`;
    await source(sourceConfig({ endpoint, mode: 'bind' }));
    const rec = recordingSink();
    const second = new KvSource(sourceConfig({ id: 'b', endpoint, mode: 'bind' }), rec.sink);
    open.push(second);
    await expect(second.start()).rejects.toThrow(/already in use/);
    expect(second.status().state).toBe('error');
    expect(second.status().lastError).toMatch(/cannot bind tcp:\/\/127\.0\.0\.1:\d+/);
  });

  it('a bind on an address not of this machine says so', async () => {
    const port = await freePorts();
    const endpoint = `tcp://10.255.255.1:${port}`;
    const s = new KvSource(sourceConfig({ endpoint, mode: 'bind' }), recordingSink().sink);
    open.push(s);
    await expect(s.start()).rejects.toThrow(
      /that address is not on this machine; bind 0\.0\.0\.0, 127\.0\.0\.1 or a local interface/,
    );
    expect(s.status().state).toBe('error');
  });

  it('rejects a malformed endpoint with a clear error', async () => {
    const rec = recordingSink();
    const s = new KvSource(sourceConfig({ endpoint: 'localhost:5557' }), rec.sink);
    open.push(s);
    await expect(s.start()).rejects.toThrow(/tcp:\/\/host:port/);
    expect(s.status().state).toBe('error');
  });

  it('a matching topic prefix gets data; a wrong topic gets nothing and a hint', async () => {
    const p = await sim({ topic: 'kv-events' });
    const ep = p.ranks[0]!.pubEndpoint;
    const good = await source(sourceConfig({ id: 'good', endpoint: ep, topic: 'kv-' }));
    const bad = await source(
      sourceConfig({ id: 'bad', endpoint: ep, topic: 'other', stallAfterSec: 0.3 }),
    );
    await heard(p, good.rec);
    await waitFor(() => bad.s.status().hint !== null, 'the hint');
    await p.publish(5);
    await waitFor(() => good.rec.seqs.length >= 6, 'more batches');
    expect(bad.s.status().counters.messages).toBe(0);
    expect(bad.rec.events).toHaveLength(0);
    const hint = bad.s.status().hint!;
    // Connected and silent: the engine side is up, so the hint is about what it publishes.
    expect(hint).toMatch(/^connected to/);
    expect(hint).toMatch(/enable_kv_cache_events/);
    expect(hint).toMatch(/topic/);
    expect(hint).not.toMatch(/base\+r/);
    expect(hint).toContain(ep);
    expect(good.s.status().hint).toBeNull();
  });

  it('tells a source that never connected what to check: port, host, bind, the rank offset', async () => {
    const port = await freePorts(1);
    const ep = `tcp://127.0.0.1:${port}`;
    const { s } = await source(sourceConfig({ id: 'p#2', endpoint: ep, stallAfterSec: 0.3 }));
    await waitFor(() => s.status().hint !== null, 'the hint');
    const hint = s.status().hint!;
    expect(s.status().state).toBe('connecting');
    expect(hint).toMatch(/^never connected to/);
    expect(hint).toMatch(/host and port/);
    expect(hint).toMatch(/bind/);
    expect(hint).toMatch(/base\+r \(this is rank 2\)/);
    expect(hint).not.toMatch(/enable_kv_cache_events/);
  });

  it('drops "never connected" once an engine that came up late connects, and counts its silence from then', async () => {
    const port = await freePorts(1);
    const ep = `tcp://127.0.0.1:${port}`;
    const { s } = await source(sourceConfig({ endpoint: ep, topic: 'other', stallAfterSec: 1 }));
    await waitFor(() => /^never connected/.test(s.status().hint ?? ''), 'the first hint');
    await new Promise((r) => setTimeout(r, 2000));
    // The engine comes up 3 s after the source, publishing under another topic: nothing arrives.
    const p = await sim({ port, topic: 'kv-events' });
    await waitFor(() => s.status().state === 'waiting', 'the handshake');
    // Beside "waiting", not the hint of before (collect printed the two together).
    expect(s.status().hint).toBe(
      `connected to ${ep} (a ZeroMQ handshake made); its first batch has not come yet`,
    );
    await p.publish(3);
    await waitFor(() => /^connected to .*but no events/.test(s.status().hint ?? ''), 'the hint');
    // Silent since the handshake, about a second: not since the source started, 3 s before it.
    expect(s.status().hint).toMatch(/but no events for 1 s:/);
  });

  it('tells a source whose host name does not resolve that it does not, naming the host', async () => {
    // .invalid never resolves (RFC 6761); without DNS at all the lookup fails with EAI_AGAIN.
    const ep = 'tcp://no-such-host.invalid:5557';
    const { s } = await source(sourceConfig({ endpoint: ep, stallAfterSec: 0.3 }));
    await waitFor(() => /does not resolve/.test(s.status().hint ?? ''), 'the host hint');
    expect(s.status().state).toBe('connecting');
    expect(s.status().hint).toMatch(
      /^never connected to tcp:\/\/no-such-host\.invalid:5557 in \d+ s: the host name "no-such-host\.invalid" does not resolve \((ENOTFOUND|EAI_AGAIN)\)/,
    );
  });

  it('tells a bound source that no publisher connected in', async () => {
    const port = await freePorts(1);
    const { s } = await source(
      sourceConfig({ endpoint: `tcp://127.0.0.1:${port}`, mode: 'bind', stallAfterSec: 0.3 }),
    );
    await waitFor(() => s.status().hint !== null, 'the hint');
    expect(s.status().hint).toMatch(/^nothing connected to .*connect out/);
  });

  it('recovers a gap through replay, in order, with no loss', async () => {
    const drop = new Set<bigint>();
    const p = await sim({ replay: true, faults: { dropFromPub: (seq) => drop.has(seq) } });
    const { s, rec } = await source(
      sourceConfig({
        endpoint: p.ranks[0]!.pubEndpoint,
        replayEndpoint: p.ranks[0]!.replayEndpoint,
      }),
    );
    await heard(p, rec);
    const f = p.stats().ranks[0]!.lastSeq!;
    for (const d of [2, 3, 4]) drop.add(BigInt(f + d));
    await p.publish(10);
    await waitFor(() => rec.seqs.at(-1) === f + 10, 'the last batch');
    const tail = rec.seqs.slice(rec.seqs.indexOf(f));
    expect(tail).toEqual(Array.from({ length: 11 }, (_, i) => f + i));
    expect(rec.gaps).toEqual([
      expect.objectContaining({ from: f + 2, to: f + 4, recovered: 3, lost: 0 }),
    ]);
    const c = s.status().counters;
    expect([c.gaps, c.recovered, c.lost]).toEqual([1, 3, 0]);
  });

  it('counts the seqs the engine no longer buffers as lost, with the gap size', async () => {
    const drop = new Set<bigint>();
    const p = await sim({
      replay: true,
      replayBuffer: 2,
      faults: { dropFromPub: (seq) => drop.has(seq) },
    });
    const { s, rec } = await source(
      sourceConfig({
        endpoint: p.ranks[0]!.pubEndpoint,
        replayEndpoint: p.ranks[0]!.replayEndpoint,
      }),
    );
    await heard(p, rec);
    const f = p.stats().ranks[0]!.lastSeq!;
    for (let d = 1; d <= 5; d++) drop.add(BigInt(f + d));
    await p.publish(10);
    await waitFor(() => rec.seqs.at(-1) === f + 10, 'the last batch');
    await waitFor(() => s.status().counters.lost > 0, 'the loss');
    expect(rec.gaps).toEqual([expect.objectContaining({ from: f + 1, to: f + 5, lost: 5 })]);
    expect(s.status().counters.lost).toBe(5);
    expect(rec.seqs.filter((q) => q > f)).toEqual([6, 7, 8, 9, 10].map((d) => f + d));
  });

  it('without a replay endpoint records a gap as lost at once', async () => {
    const drop = new Set<bigint>();
    const p = await sim({ faults: { dropFromPub: (seq) => drop.has(seq) } });
    const { s, rec } = await source(sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint }));
    await heard(p, rec);
    const f = p.stats().ranks[0]!.lastSeq!;
    drop.add(BigInt(f + 1));
    drop.add(BigInt(f + 2));
    await p.publish(4);
    await waitFor(() => rec.seqs.at(-1) === f + 4, 'the last batch');
    expect(rec.gaps).toEqual([
      expect.objectContaining({ from: f + 1, to: f + 2, lost: 2, recovered: 0 }),
    ]);
    expect(s.status().counters.lost).toBe(2);
  });

  it('sees a publisher restart as a reset, not a gap', async () => {
    const p = await sim({ replay: true });
    const { s, rec } = await source(
      sourceConfig({
        endpoint: p.ranks[0]!.pubEndpoint,
        replayEndpoint: p.ranks[0]!.replayEndpoint,
      }),
    );
    await heard(p, rec);
    await p.publish(5);
    const before = p.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === before, 'the batches before the restart');
    p.restart();
    await p.publish(3);
    await waitFor(() => rec.seqs.at(-1) === 2, 'the batches after the restart');
    expect(rec.resets).toEqual([expect.objectContaining({ previousSeq: before })]);
    expect(rec.gaps).toEqual([]);
    const c = s.status().counters;
    expect([c.resets, c.gaps, c.lost]).toEqual([1, 0, 0]);
  });

  it('reconnects by itself when the engine restarts on the same port, and sees a reset', async () => {
    // The first engine binds port 0; the restarted one binds the port it was given.
    const first = await sim({ seed: 1 });
    const endpoint = first.ranks[0]!.pubEndpoint;
    const port = Number(new URL(endpoint).port);
    const { s, rec } = await source(sourceConfig({ endpoint }));
    await heard(first, rec);
    // A run longer than the slow joiner's loss, so the restart shows as seq going back.
    await first.publish(100);
    const before = first.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === before, 'the first run');
    await first.close();
    const second = await sim({ seed: 2, port });
    // Back before its first batch: the hint says so, not the hang-up any more.
    await waitFor(() => s.status().state === 'waiting', 'the handshake with the new engine');
    expect(s.status().hint).toMatch(/is back \(a ZeroMQ handshake made\)/);
    const n = rec.seqs.length;
    await warmUp(
      () => second.publish(),
      () => rec.seqs.length - n,
      'the restarted engine',
    );
    expect(rec.resets).toEqual([expect.objectContaining({ previousSeq: before })]);
    expect(s.status().counters.duplicates).toBe(0);
    expect(s.status().state).toBe('connected');
  });

  it('says at once that an engine hung up, not after the stall timeout, and turns connected when it is back', async () => {
    // The first engine binds port 0; the restarted one binds the port it was given.
    const first = await sim({ seed: 1 });
    const endpoint = first.ranks[0]!.pubEndpoint;
    const port = Number(new URL(endpoint).port);
    const { s, rec } = await source(sourceConfig({ endpoint, stallAfterSec: 3600 }));
    await heard(first, rec);
    expect(s.status().state).toBe('connected');
    await first.close();
    await waitFor(() => s.status().state === 'connecting', 'the hang-up seen');
    expect(s.status().hint).toMatch(/closed the connection/);
    const second = await sim({ seed: 2, port });
    // Back before its first batch: the hint says so, not the hang-up any more.
    await waitFor(() => s.status().state === 'waiting', 'the handshake with the new engine');
    expect(s.status().hint).toMatch(/is back \(a ZeroMQ handshake made\)/);
    const n = rec.seqs.length;
    await warmUp(
      () => second.publish(),
      () => rec.seqs.length - n,
      'the restarted engine',
    );
    await waitFor(() => s.status().state === 'connected', 'connected again');
    expect(s.status().hint).toBeNull();
  });

  it('a bound source says when the publisher that connected in hung up', async () => {
    const port = await freePorts();
    const { s, rec } = await source(
      sourceConfig({ endpoint: `tcp://127.0.0.1:${port}`, mode: 'bind', stallAfterSec: 3600 }),
    );
    const p = await sim({ seed: 3, bind: false, connectTo: `tcp://127.0.0.1:${port}` });
    await heard(p, rec);
    await p.close();
    await waitFor(() => s.status().state === 'waiting', 'the hang-up seen');
    expect(s.status().hint).toMatch(/hung up/);
  });

  it('turns stalled when the publisher goes quiet and connected again when it resumes', async () => {
    const p = await sim();
    const { s, rec } = await source(
      sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint, stallAfterSec: 0.3 }),
    );
    const states: string[] = [];
    s.onStatus((st) => states.push(st.state));
    await heard(p, rec);
    await waitFor(() => s.status().state === 'stalled', 'stalled');
    expect(s.status().hint).toMatch(/no messages for/);
    const n = rec.seqs.length;
    await p.publish(1);
    await waitFor(() => rec.seqs.length > n, 'a new batch');
    expect(s.status().state).toBe('connected');
    expect(s.status().hint).toBeNull();
    expect(states).toEqual(expect.arrayContaining(['connected', 'stalled']));
    expect(states.lastIndexOf('connected')).toBeGreaterThan(states.indexOf('stalled'));
  });

  it('counts undecodable payloads without breaking the seq order', async () => {
    const p = await sim({ faults: { garbageEvery: 3 } });
    const { s, rec } = await source(sourceConfig({ endpoint: p.ranks[0]!.pubEndpoint }));
    await heard(p, rec);
    await p.publish(9);
    const lastSeq = p.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === lastSeq, 'the last batch');
    expect(rec.undecoded.length).toBeGreaterThanOrEqual(3);
    expect(rec.undecoded.every((u) => u.bytes > 0 && u.error.length > 0 && u.seq !== null)).toBe(
      true,
    );
    expect(s.status().counters.gaps).toBe(0);
    expect(s.status().counters.undecoded).toBe(rec.undecoded.length);
  });

  it('runs several sources at once, each with its own stream', async () => {
    const sims = await Promise.all([
      sim({ seed: 1 }),
      sim({ seed: 2, hash: 'bytes' }),
      sim({ seed: 3 }),
    ]);
    const srcs = await Promise.all(
      sims.map((p, i) => source(sourceConfig({ id: `s${i}`, endpoint: p.ranks[0]!.pubEndpoint }))),
    );
    for (let i = 0; i < 3; i++) {
      await heard(sims[i]!, srcs[i]!.rec);
    }
    await Promise.all(sims.map((p, i) => p.publish(5 + i)));
    for (let i = 0; i < 3; i++) {
      const last = sims[i]!.stats().ranks[0]!.lastSeq!;
      await waitFor(() => srcs[i]!.rec.seqs.at(-1) === last, `source ${i}`);
      expect(srcs[i]!.rec.events.every((e) => e.source === `s${i}`)).toBe(true);
    }
    expect(srcs[1]!.s.status().fingerprint?.hashes).toEqual(['bytes']);
    expect(srcs[0]!.s.status().fingerprint?.hashes).not.toContain('bytes');
  });

  it('subscribes to every data-parallel rank on base port + r', async () => {
    // Port 0: rank 0 binds where the OS says, rank 1 on the next port (the simulator tries again
    // elsewhere when that one is taken), so no port is looked up first and bound later.
    const p = await sim({ dp: 2, replay: true });
    const endpoint = p.ranks[0]!.pubEndpoint;
    const base = Number(new URL(endpoint).port);
    const cfgs = expandProfile({
      id: 'eng',
      name: 'engine',
      endpoint,
      mode: 'connect',
      topic: '',
      replayEndpoint: p.ranks[0]!.replayEndpoint,
      dpRanks: 2,
    });
    expect(cfgs.map((c) => c.id)).toEqual(['eng', 'eng#1']);
    const srcs = await Promise.all(cfgs.map((c) => source(c)));
    await warmUp(
      () => p.publish(),
      () => Math.min(...srcs.map((x) => x.rec.seqs.length)),
    );
    await p.publish(5);
    for (let r = 0; r < 2; r++) {
      const last = p.stats().ranks[r]!.lastSeq!;
      await waitFor(() => srcs[r]!.rec.seqs.at(-1) === last, `rank ${r}`);
      expect(srcs[r]!.rec.events.every((e) => e.dp_rank === r)).toBe(true);
    }
    expect(srcs[1]!.s.status().endpoint).toBe(`tcp://127.0.0.1:${base + 1}`);
  });

  it('opening and closing 200 sources leaks no handles or sockets', async () => {
    const p = await sim({ replay: true });
    const ep = p.ranks[0]!.pubEndpoint;
    const handles = () =>
      (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    const warm = new KvSource(sourceConfig({ endpoint: ep }), recordingSink().sink);
    await warm.start();
    await warm.close();
    const fds = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = handles();
    const fdsBefore = fds();
    for (let i = 0; i < 200; i++) {
      const s = new KvSource(
        sourceConfig({ id: `x${i}`, endpoint: ep, replayEndpoint: p.ranks[0]!.replayEndpoint }),
        recordingSink().sink,
      );
      await s.start();
      await s.close();
      expect(s.status().state).toBe('closed');
    }
    expect(handles()).toBeLessThanOrEqual(before + 2);
    // Each ZeroMQ socket holds file descriptors (its mailbox, its TCP link) that its I/O thread
    // releases shortly after close: they must all come back (a leak would keep hundreds).
    await waitFor(() => fds() <= fdsBefore + 10, `fds back near ${fdsBefore} (now ${fds()})`);
  });
});
