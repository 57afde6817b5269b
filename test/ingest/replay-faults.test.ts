// Replay endpoints that answer badly, over real sockets: a live SimPublisher drops a few batches
// from PUB, and a ROUTER written here answers the replay request with garbage. Counters stay
// sane, nothing is invented, and the ROUTER is asked once, not in a storm.
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import type { SourceConfig } from '../../electron/ingest/source-config';
import { SimPublisher } from '../../electron/sim/publisher';
import { encodeSeq, readSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { recordingSink, warmUp, type Recorded } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

type Send = (frames: (Buffer | string)[]) => Promise<void>;

/** A replay ROUTER whose answer is `answer(start, send)`; it counts the requests it gets. */
async function badEngine(
  answer: (start: bigint, send: Send, stopped: () => boolean) => Promise<void>,
) {
  const router = new Router({ linger: 0, sendHighWaterMark: 0 });
  await router.bind('tcp://127.0.0.1:*');
  const requests: bigint[] = [];
  // Each request's DEALER closes when its exchange ends (answered or given up): the ROUTER sees it go.
  const gone = { n: 0 };
  router.events.on('disconnect', () => void gone.n++);
  let closed = false;
  void (async () => {
    try {
      for await (const [id, , start] of router) {
        requests.push(readSeq(start!) ?? -1n);
        const send: Send = async (frames) => {
          if (!closed) await router.send([id!, '', ...frames]);
        };
        void answer(requests.at(-1)!, send, () => closed).catch(() => undefined);
      }
    } catch {
      // closed under the loop
    }
  })();
  open.push({
    close: () => {
      closed = true;
      router.close();
    },
  });
  return { endpoint: router.lastEndpoint!, requests, gone };
}

interface Setup {
  sim: SimPublisher;
  src: KvSource;
  rec: Recorded;
  payloads: Map<number, Uint8Array>;
  events: Map<number, number>;
  /** The last seq heard before the drops. */
  f: number;
  /** Seqs the sim's PUB drops (f+1..f+3 to begin with). */
  drop: Set<bigint>;
}

/** Live stream from a sim; the next batches f+1..f+3 will be dropped from PUB. */
async function setup(
  replayEndpoint: string,
  opts = {},
  cfgOver: Partial<SourceConfig> = {},
): Promise<Setup> {
  const drop = new Set<bigint>();
  const sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    seed: 5,
    faults: { dropFromPub: (seq) => drop.has(seq) },
  });
  open.push(sim);
  const payloads = new Map<number, Uint8Array>();
  const events = new Map<number, number>();
  sim.onBatch((b) => {
    payloads.set(b.seq, b.payload);
    events.set(b.seq, b.events.length);
  });
  const cfg: SourceConfig = {
    id: 'src',
    name: 'test',
    endpoint: sim.ranks[0]!.pubEndpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint,
    profileId: null,
    ...cfgOver,
  };
  const rec = recordingSink();
  // No quiet probe here: these tests count the requests a gap makes.
  const src = new KvSource(cfg, rec.sink, { replayIdleMs: 300, probeAfterMs: 3_600_000, ...opts });
  open.push(src);
  await src.start();
  await warmUp(
    () => sim.publish(),
    () => rec.seqs.length,
  );
  // At least a few batches before the gap, so an answer can reach below its start.
  await sim.publish(6);
  await waitFor(() => rec.seqs.at(-1) === sim.stats().ranks[0]!.lastSeq, 'the warm-up');
  const f = sim.stats().ranks[0]!.lastSeq!;
  for (const d of [1, 2, 3]) drop.add(BigInt(f + d));
  return { sim, src, rec, payloads, events, f, drop };
}

/** Publishes f+1..f+10 (three dropped), waits for them to settle and checks nothing was invented. */
async function runGap(s: Setup): Promise<void> {
  await s.sim.publish(10);
  await waitFor(() => s.rec.seqs.at(-1) === s.f + 10, 'the batches after the gap');
  const seqs = s.rec.seqs;
  for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!);
  const published = [...seqs].reduce((n, q) => n + (s.events.get(q) ?? NaN), 0);
  expect(s.rec.events.length).toBe(published);
  const after = seqs.filter((q) => q > s.f);
  expect(after.every((q) => q <= s.f + 10)).toBe(true);
  for (let d = 4; d <= 10; d++) expect(after).toContain(s.f + d);
}

/** Live goes on without drops: no further request follows from the bad answer. */
async function thenQuietly(s: Setup, requests: bigint[]): Promise<void> {
  await s.sim.publish(5);
  await waitFor(() => s.rec.seqs.at(-1) === s.f + 15, 'the batches after');
  // Asked once, from the last batch settled before the gap (asked again to check the run).
  expect(requests).toEqual([BigInt(s.f)]);
}

describe('KvSource against a replay endpoint that answers badly', () => {
  it('garbage seq frames: rejected, the gap lost, asked once', async () => {
    const eng = await badEngine(async (_start, send) => {
      for (let i = 0; i < 3; i++) await send([Buffer.from('xyz'), Buffer.from('payload')]);
      await send([encodeSeq(-1n), '']);
    });
    const s = await setup(eng.endpoint);
    await runGap(s);
    const c = s.src.status().counters;
    expect([c.gaps, c.recovered, c.lost, c.replayRejected]).toEqual([1, 0, 3, 3]);
    await thenQuietly(s, eng.requests);
  });

  it('seqs below the start: rejected, never applied (no second copy of a batch)', async () => {
    const eng = await badEngine(async (start, send) => {
      for (let q = Number(start) - 5; q < Number(start); q++)
        await send([encodeSeq(BigInt(q)), Buffer.from(s.payloads.get(q)!)]);
      await send([encodeSeq(-1n), '']);
    });
    // The engine answers only after setup() has returned (the gap comes later).
    const s = await setup(eng.endpoint);
    const before = s.rec.seqs.length;
    await runGap(s);
    expect(s.rec.seqs.length - before).toBe(7);
    const c = s.src.status().counters;
    expect([c.recovered, c.lost, c.replayRejected, c.duplicates]).toEqual([0, 3, 5, 0]);
    await thenQuietly(s, eng.requests);
  });

  it('a seq far ahead: rejected, ends the answer, moves neither lost nor the stream', async () => {
    const eng = await badEngine(async (start, send) => {
      await send([encodeSeq(2n ** 40n), Buffer.from(s.payloads.get(Number(start))!)]);
      // Whatever follows a refused frame is not read as part of the answer.
      await send([encodeSeq(start), Buffer.from(s.payloads.get(Number(start))!)]);
      await send([encodeSeq(-1n), '']);
    });
    // The engine answers only after setup() has returned (the gap comes later).
    const s = await setup(eng.endpoint);
    await runGap(s);
    const c = s.src.status().counters;
    expect([c.gaps, c.recovered, c.lost, c.replayRejected, c.resets]).toEqual([1, 0, 3, 1, 0]);
    await thenQuietly(s, eng.requests);
  });

  it('an endless answer that repeats itself: given up after the idle time, asked once', async () => {
    const eng = await badEngine(async (start, send, stopped) => {
      // The batch asked again to check the run, then the first missing one over and over.
      await send([encodeSeq(start), Buffer.from(s.payloads.get(Number(start))!)]);
      const p = Buffer.from(s.payloads.get(Number(start) + 1)!);
      while (!stopped()) {
        await send([encodeSeq(start + 1n), p]);
        await new Promise((r) => setTimeout(r, 2));
      }
    });
    // The engine answers only after setup() has returned (the gap comes later).
    const s = await setup(eng.endpoint);
    await runGap(s);
    const c = s.src.status().counters;
    expect([c.gaps, c.recovered, c.lost]).toEqual([1, 1, 2]);
    expect(c.replayRejected).toBeGreaterThan(0);
    expect(s.rec.seqs).toContain(s.f + 1);
    await thenQuietly(s, eng.requests);
  });

  it('no end marker: what came is applied, the rest lost after the idle time', async () => {
    const eng = await badEngine(async (start, send) => {
      // The batch asked again to check the run and the first missing one; then nothing.
      for (const q of [start, start + 1n])
        await send([encodeSeq(q), Buffer.from(s.payloads.get(Number(q))!)]);
    });
    // The engine answers only after setup() has returned (the gap comes later).
    const s = await setup(eng.endpoint);
    await runGap(s);
    const c = s.src.status().counters;
    expect([c.gaps, c.recovered, c.lost, c.replayRejected]).toEqual([1, 1, 2, 0]);
    await thenQuietly(s, eng.requests);
  });
});

/** Answers a request with every batch from its start the sim published, then the end marker. */
async function answerFrom(s: Setup, start: bigint, send: Send): Promise<void> {
  for (let q = Number(start); s.payloads.has(q); q++)
    await send([encodeSeq(BigInt(q)), Buffer.from(s.payloads.get(q)!)]);
  await send([encodeSeq(-1n), '']);
}

describe('KvSource warning about a replay endpoint that sent nothing', () => {
  it('takes the warning back once a replay answers', async () => {
    let s: Setup | null = null;
    // Silent to the first request (as an engine whose replay socket is not up yet), then answers.
    const eng = await badEngine(async (start, send) => {
      if (eng.requests.length > 1 && s) await answerFrom(s, start, send);
    });
    s = await setup(eng.endpoint);
    await runGap(s);
    expect(s.src.status().lastError).toMatch(/replay from tcp:.* sent nothing for 300 ms/);
    // A second gap, and this time the engine answers it.
    for (const d of [11, 12, 13]) s.drop.add(BigInt(s.f + d));
    await s.sim.publish(10);
    await waitFor(() => s.rec.seqs.at(-1) === s.f + 20, 'the batches after the second gap');
    const c = s.src.status().counters;
    expect([c.gaps, c.recovered, c.lost]).toEqual([2, 3, 3]);
    expect(eng.requests).toHaveLength(2);
    expect(s.src.status().lastError).toBeNull();
  });

  it('raises none for a replay asked while the engine was down', async () => {
    let up = true;
    let s: Setup | null = null;
    // Answers while the engine runs; killed, its replay socket says nothing.
    const eng = await badEngine(async (start, send) => {
      if (up && s) await answerFrom(s, start, send);
    });
    s = await setup(eng.endpoint, { probeAfterMs: 100 });
    await runGap(s);
    expect(s.src.status().lastError).toBeNull();
    const asked = eng.requests.length;
    up = false;
    await s.sim.close();
    await waitFor(() => s.src.status().state === 'connecting', 'the hang-up seen');
    // The quiet source probes the dead engine; its DEALER gives up after the idle time.
    await waitFor(() => eng.requests.length > asked, 'a probe of the dead engine');
    await waitFor(() => eng.gone.n >= eng.requests.length, 'the probe given up');
    expect(s.src.status().lastError).toBeNull();
  });
});

describe('KvSource after a pause of the engine (SIGSTOP)', () => {
  /**
   * The stream stops and the quiet probe gets no answer: silent on both sockets, the engine is
   * paused, and its replay endpoint is not blamed (it was, and the warning taken back later).
   */
  async function pausedProbe(answers: () => boolean) {
    let s: Setup | null = null;
    const eng = await badEngine(async (start, send) => {
      if (answers() && s) await answerFrom(s, start, send);
    });
    s = await setup(eng.endpoint, { probeAfterMs: 100 }, { stallAfterSec: 0.5 });
    s.drop.clear();
    const src = s.src;
    await waitFor(() => eng.requests.length > 0, 'the probe');
    await waitFor(() => eng.gone.n >= eng.requests.length, 'the probe given up');
    await waitFor(() => src.status().state === 'stalled', 'the stall');
    expect(src.status().lastError).toBeNull();
    return { s, eng };
  }

  it('says nothing of a probe the paused engine left unanswered, and asks again once it publishes', async () => {
    let paused = true;
    const { s, eng } = await pausedProbe(() => !paused);
    paused = false;
    await s.sim.publish(3);
    // Back: the replay endpoint is asked once more, from far ahead, and answers.
    await waitFor(() => eng.requests.includes(2n ** 62n), 'the check');
    await waitFor(() => eng.gone.n >= eng.requests.length, 'the check answered');
    expect(s.src.status().lastError).toBeNull();
    expect(s.src.status().counters.lost).toBe(0);
  });

  it('takes a probe answered only after a burst (the ring of recent batches passed) as the same run', async () => {
    let s: Setup | null = null;
    let resume = (): void => undefined;
    const resumed = new Promise<void>((r) => (resume = r));
    // Paused while the quiet source probes it; back, it publishes a burst before it answers.
    const eng = await badEngine(async (start, send) => {
      await resumed;
      if (s) await answerFrom(s, start, send);
    });
    s = await setup(eng.endpoint, { probeAfterMs: 100, replayIdleMs: 10_000 });
    const { sim, rec, f } = s;
    s.drop.clear();
    await waitFor(() => eng.requests.length === 1, 'the probe');
    expect(eng.requests).toEqual([BigInt(f)]);
    await sim.publish(300);
    await waitFor(() => rec.seqs.at(-1) === f + 300, 'the burst');
    resume();
    await waitFor(() => eng.gone.n >= 1, 'the answer taken');
    // Read as a restart, the new run would be asked for from 0 at once, and answered. (A probe
    // of the quiet source after the burst may follow: from its last batch.)
    await new Promise((r) => setTimeout(r, 500));
    expect(eng.requests[0]).toBe(BigInt(f));
    expect(eng.requests).not.toContain(0n);
    const c = s.src.status().counters;
    expect([c.resets, c.gaps, c.lost, c.recovered, c.replayRejected]).toEqual([0, 0, 0, 0, 0]);
    expect(rec.seqs.filter((q) => q > f)).toEqual(Array.from({ length: 300 }, (_, i) => f + 1 + i));
  });

  it('warns when the replay endpoint still says nothing while the stream is back', async () => {
    const { s, eng } = await pausedProbe(() => false);
    await s.sim.publish(3);
    await waitFor(() => eng.requests.includes(2n ** 62n), 'the check');
    await waitFor(() => eng.gone.n >= eng.requests.length, 'the check given up');
    expect(s.src.status().lastError).toMatch(/sent nothing for 300 ms/);
  });
});

describe('KvSource asking a quiet source for its tail', () => {
  it('finds batches lost at the end of a burst without waiting for the next one', async () => {
    const drop = new Set<bigint>();
    const sim = await SimPublisher.start({
      format: 'map',
      hash: 'int',
      seed: 9,
      replay: true,
      faults: { dropFromPub: (seq) => drop.has(seq) },
    });
    open.push(sim);
    const cfg: SourceConfig = {
      id: 'src',
      name: 'test',
      endpoint: sim.ranks[0]!.pubEndpoint,
      mode: 'connect',
      topic: '',
      replayEndpoint: sim.ranks[0]!.replayEndpoint,
      profileId: null,
    };
    const rec = recordingSink();
    const src = new KvSource(cfg, rec.sink, { probeAfterMs: 300 });
    open.push(src);
    await src.start();
    await warmUp(
      () => sim.publish(),
      () => rec.seqs.length,
    );
    const f = sim.stats().ranks[0]!.lastSeq!;
    // The burst's last three batches never reach the subscriber; nothing is published after.
    for (const d of [8, 9, 10]) drop.add(BigInt(f + d));
    await sim.publish(10);
    await waitFor(() => rec.seqs.at(-1) === f + 10, 'the tail, through the probe');
    expect(rec.seqs.filter((q) => q > f)).toEqual(Array.from({ length: 10 }, (_, i) => f + 1 + i));
    // Counted once a further quiet period showed that their live copies are not coming.
    await waitFor(() => rec.gaps.length > 0, 'the gap');
    expect(rec.gaps).toEqual([expect.objectContaining({ from: f + 8, to: f + 10, recovered: 3 })]);
    const c = src.status().counters;
    expect([c.gaps, c.recovered, c.lost, c.replayRejected]).toEqual([1, 3, 0, 0]);
    // One request found them: the probe (no live batch ever revealed this gap), from the last
    // batch settled (asked again to check the run).
    expect(sim.replayRequests().map((r) => Number(r.start))).toEqual([f + 7]);
  });

  it('does not ask while its own consumer holds receiving (the backlog is queued, not lost)', async () => {
    const sim = await SimPublisher.start({ format: 'map', hash: 'int', seed: 4, replay: true });
    open.push(sim);
    const cfg: SourceConfig = {
      id: 'src',
      name: 'test',
      endpoint: sim.ranks[0]!.pubEndpoint,
      mode: 'connect',
      topic: '',
      replayEndpoint: sim.ranks[0]!.replayEndpoint,
      profileId: null,
    };
    const rec = recordingSink();
    let gate: Promise<void> | null = null;
    let release = (): void => undefined;
    const src = new KvSource(cfg, rec.sink, { probeAfterMs: 200, beforeReceive: () => gate });
    open.push(src);
    await src.start();
    await warmUp(
      () => sim.publish(),
      () => rec.seqs.length,
    );
    gate = new Promise<void>((resolve) => (release = resolve));
    await sim.publish(20);
    // Held well past the probe delay: the scenario, a slow stdout under `kvscope capture`.
    const until = Date.now() + 1000;
    await waitFor(() => Date.now() > until, 'the hold');
    gate = null;
    release();
    const last = sim.stats().ranks[0]!.lastSeq!;
    await waitFor(() => rec.seqs.at(-1) === last, 'the queued batches');
    expect(sim.replayRequests()).toEqual([]);
    const c = src.status().counters;
    expect([c.gaps, c.duplicates, c.resets]).toEqual([0, 0, 0]);
  });
});

/**
 * A source whose replay endpoint is `other`'s goes quiet long enough to probe it, then its own
 * engine publishes 5 more: they follow its last seq, each seq's events its own engine's.
 */
async function quietThenOn(other: SimPublisher): Promise<Setup> {
  const s = await setup(other.ranks[0]!.replayEndpoint!, { probeAfterMs: 150 });
  s.drop.clear();
  await waitFor(() => other.replayRequests().length > 0, 'a probe');
  await new Promise((r) => setTimeout(r, 500));
  await s.sim.publish(5);
  await waitFor(() => s.rec.seqs.at(-1) === s.f + 5, 'the batches after the pause');
  expect(s.rec.seqs.slice(-6)).toEqual([0, 1, 2, 3, 4, 5].map((d) => s.f + d));
  for (const q of s.rec.seqs)
    expect(s.rec.events.filter((e) => e.seq === q)).toHaveLength(s.events.get(q)!);
  return s;
}

describe("KvSource given another engine's replay endpoint", () => {
  it('applies nothing of its answers: the gap is lost, no restart, and the status says why', async () => {
    // Engine B, with batches under the same seqs as A's (another workload): its replay
    // endpoint is given for A, as a wrong port (another engine's, another rank's) would be.
    const other = await SimPublisher.start({ format: 'map', hash: 'int', seed: 99, replay: true });
    open.push(other);
    await other.publish(40);
    const s = await setup(other.ranks[0]!.replayEndpoint!);
    expect(s.f).toBeLessThan(36);
    await runGap(s);
    await waitFor(() => s.rec.gaps.length === 1, 'the gap settled');
    expect(s.rec.gaps[0]).toMatchObject({ from: s.f + 1, to: s.f + 3, recovered: 0, lost: 3 });
    expect(s.rec.resets).toEqual([]);
    const st = s.src.status();
    expect(st.counters).toMatchObject({ gaps: 1, recovered: 0, lost: 3, resets: 0 });
    expect(st.lastError).toMatch(
      new RegExp(
        `^the replay endpoint ${other.ranks[0]!.replayEndpoint} answered with batches that are not this engine's`,
      ),
    );
    // What was applied is A's own: each seq's events as A published them.
    for (const q of s.rec.seqs)
      expect(s.rec.events.filter((e) => e.seq === q)).toHaveLength(s.events.get(q)!);
  }, 30_000);

  it("applies nothing of its answer to a probe when that answer starts past the seq asked (B's buffer moved on)", async () => {
    // B published further than its buffer holds: its answer to A's probe starts past A's last
    // seq and overlaps nothing of A's stream. Applied, B's batches were taken as A's (its pool,
    // its blocks) and every batch of A's after them read as a duplicate.
    const other = await SimPublisher.start({
      format: 'map',
      hash: 'int',
      seed: 99,
      replay: true,
      replayBuffer: 20,
    });
    open.push(other);
    await other.publish(200);
    const s = await quietThenOn(other);
    expect(s.rec.seqs.every((q) => q <= s.f + 5)).toBe(true);
    expect(s.src.status().counters).toMatchObject({ gaps: 0, duplicates: 0, resets: 0 });
  }, 30_000);

  it('takes no restart from its answer to a probe of a quiet engine (a paused one)', async () => {
    const other = await SimPublisher.start({ format: 'map', hash: 'int', seed: 99, replay: true });
    open.push(other);
    await other.publish(40);
    // Quiet: the source probes B from its last seq and gets another batch there.
    const s = await quietThenOn(other);
    expect(s.rec.resets).toEqual([]);
    expect(s.rec.gaps).toEqual([]);
  }, 30_000);
});
