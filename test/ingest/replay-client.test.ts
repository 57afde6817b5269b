import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'zeromq';
import {
  ReplayTimeoutError,
  requestReplay,
  streamReplay,
} from '../../electron/ingest/replay-client';
import { encodeSeq } from '../../electron/wire/message';
import { SimPublisher } from '../../electron/sim/publisher';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) await x.close();
});

describe('replay client (DEALER against the engine ROUTER)', () => {
  for (const topicFrame of [false, true]) {
    it(`gets every buffered batch from start_seq until the end marker (topic frame: ${topicFrame})`, async () => {
      const sim = await SimPublisher.start({
        format: 'map',
        hash: 'int',
        replay: true,
        replayBuffer: 50,
        replayTopicFrame: topicFrame,
      });
      open.push(sim);
      const payloads = new Map<number, Uint8Array>();
      sim.onBatch((b) => payloads.set(b.seq, b.payload));
      await sim.publish(80);
      const got = await requestReplay(sim.ranks[0]!.replayEndpoint!, 40n);
      expect(got.map((b) => Number(b.seq))).toEqual(Array.from({ length: 40 }, (_, i) => 40 + i));
      for (const b of got)
        expect(Buffer.from(b.payload).equals(Buffer.from(payloads.get(Number(b.seq))!))).toBe(true);
      // Asking for evicted seqs gives what is left, silently (the buffer holds 30..79).
      const older = await requestReplay(sim.ranks[0]!.replayEndpoint!, 0n);
      expect(Number(older[0]!.seq)).toBe(30);
    });
  }

  it('times out with a clear message when the engine never answers, keeping nothing', async () => {
    const router = new Router({ linger: 0 });
    open.push(router);
    await router.bind('tcp://127.0.0.1:*');
    const err = await requestReplay(router.lastEndpoint!, 5n, { idleMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ReplayTimeoutError);
    expect((err as Error).message).toMatch(/sent nothing for 200 ms.*replay_endpoint/);
    expect((err as ReplayTimeoutError).partial).toEqual([]);
  });

  it('stops at once and releases its socket when aborted', async () => {
    const router = new Router({ linger: 0 });
    open.push(router);
    await router.bind('tcp://127.0.0.1:*');
    const ac = new AbortController();
    const p = requestReplay(router.lastEndpoint!, 0n, { idleMs: 10_000, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow(/aborted/);
  });
});

describe('replay client streaming a long answer', () => {
  it('hands over a 10,000-batch answer frame by frame, with an idle timeout, not a total one', async () => {
    const router = new Router({ linger: 0, sendHighWaterMark: 0 });
    open.push(router);
    await router.bind('tcp://127.0.0.1:*');
    const payload = Buffer.alloc(200, 7);
    // A slow engine: 10,000 batches in bursts, pausing longer in total than the idle timeout
    // (3 x 800 ms against 2 s). Each pause is well under it, so that a timer fired late on a
    // loaded machine (the engine runs on this test's own event loop) is no silence of 2 s.
    const engine = (async () => {
      const [id] = await router.receive();
      for (let q = 0; q < 10_000; q++) {
        await router.send([id!, '', encodeSeq(BigInt(q)), payload]);
        if (q % 3000 === 2999) await new Promise((r) => setTimeout(r, 800));
      }
      await router.send([id!, '', encodeSeq(-1n), '']);
    })();
    const seqs: bigint[] = [];
    const outcome = await streamReplay(
      router.lastEndpoint!,
      0n,
      { batch: (seq) => seqs.push(seq) > 0, garbage: () => true },
      { idleMs: 2000 },
    );
    await engine;
    expect(outcome).toBe('complete');
    expect(seqs).toHaveLength(10_000);
    expect(seqs.every((q, i) => q === BigInt(i))).toBe(true);
  });

  it('reports frames without a readable seq as garbage and stops when told to', async () => {
    const router = new Router({ linger: 0 });
    open.push(router);
    await router.bind('tcp://127.0.0.1:*');
    // Awaited before the test ends: closing the ROUTER under a pending send rejected it
    // (ENOTSOCK) after the test, as an unhandled error of the whole run.
    const engine = (async () => {
      const [id] = await router.receive();
      await router.send([id!, '', Buffer.from('bad'), Buffer.from('x')]);
      await router.send([id!, '', encodeSeq(3n), Buffer.from('p')]);
      await router.send([id!, '', encodeSeq(4n), Buffer.from('p')]);
    })();
    let garbage = 0;
    const seqs: bigint[] = [];
    const outcome = await streamReplay(router.lastEndpoint!, 3n, {
      batch: (seq) => seqs.push(seq) < 1,
      garbage: () => ++garbage > 0,
    });
    await engine;
    expect(outcome).toBe('stopped');
    expect(garbage).toBe(1);
    expect(seqs).toEqual([3n]);
  });
});
