import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'zeromq';
import { ReplayTimeoutError, requestReplay } from '../../electron/ingest/replay-client';
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
    const err = await requestReplay(router.lastEndpoint!, 5n, { timeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ReplayTimeoutError);
    expect((err as Error).message).toMatch(/did not finish within 200 ms.*replay_endpoint/);
    expect((err as ReplayTimeoutError).partial).toEqual([]);
  });

  it('stops at once and releases its socket when aborted', async () => {
    const router = new Router({ linger: 0 });
    open.push(router);
    await router.bind('tcp://127.0.0.1:*');
    const ac = new AbortController();
    const p = requestReplay(router.lastEndpoint!, 0n, { timeoutMs: 10_000, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow(/aborted/);
  });
});
