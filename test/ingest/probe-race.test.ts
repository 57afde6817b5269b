// The race behind false gaps under load: a quiet source probes the replay endpoint, and the
// answer overtakes batches still on their way over PUB. An engine written here (a real PUB and
// ROUTER on loopback) holds the live copies back until it has answered the probe, so the race
// goes the bad way every run. The counters must say what the live stream really missed.
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher, Router } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import type { SourceConfig } from '../../electron/ingest/source-config';
import { encodeSeq, readSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { clearedBatch, recordingSink, warmUp } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

/** A PUB + replay ROUTER whose buffer holds every batch published or held back. */
async function engine() {
  const pub = new Publisher({ linger: 0 });
  await pub.bind('tcp://127.0.0.1:*');
  const router = new Router({ linger: 0 });
  await router.bind('tcp://127.0.0.1:*');
  const buffer: number[] = [];
  const requests: number[] = [];
  let live = 0;
  /** Called after each answer with the newest seq it carried. */
  let answered = (_newest: number): void => undefined;
  void (async () => {
    try {
      for await (const [id, , start] of router) {
        const from = Number(readSeq(start!));
        requests.push(from);
        const seqs = buffer.filter((b) => b >= from);
        for (const q of seqs) await router.send([id!, '', encodeSeq(BigInt(q)), clearedBatch(q)]);
        await router.send([id!, '', encodeSeq(-1n), '']);
        answered(seqs.at(-1) ?? -1);
      }
    } catch {
      // closed under the loop
    }
  })();
  open.push({
    close: () => {
      router.close();
      pub.close();
    },
  });
  let next = 0;
  return {
    pubEndpoint: pub.lastEndpoint!,
    replayEndpoint: router.lastEndpoint!,
    requests,
    /** Messages sent on PUB. */
    live: () => live,
    /** Publishes the next seq on PUB (and keeps it for replay). */
    async publish(): Promise<number> {
      const q = next++;
      buffer.push(q);
      await this.sendLate(q);
      return q;
    },
    /** Keeps the next n seqs for replay only; `answered`: a replay answer has carried them. */
    holdBack(n: number): { seqs: number[]; answered: Promise<void> } {
      const seqs = Array.from({ length: n }, () => next++);
      buffer.push(...seqs);
      const newest = seqs.at(-1)!;
      const done = new Promise<void>((resolve) => {
        answered = (q) => {
          if (q >= newest) resolve();
        };
      });
      return { seqs, answered: done };
    },
    /** Sends seq q on PUB: for a held-back seq, its late live copy. */
    async sendLate(q: number): Promise<void> {
      live++;
      await pub.send(['kv', encodeSeq(BigInt(q)), clearedBatch(q)]);
    },
  };
}

type Engine = Awaited<ReturnType<typeof engine>>;

/** A source on `eng`, warmed up; then `n` batches are held back. */
async function heldBackAfterWarmUp(eng: Engine, n: number) {
  const cfg: SourceConfig = {
    id: 'src',
    name: 'test',
    endpoint: eng.pubEndpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint: eng.replayEndpoint,
    profileId: null,
  };
  const rec = recordingSink();
  // The live copies are sent the moment the answer is out; the quiet period after it that would
  // judge them missing is long beside that, even on a loaded machine.
  const src = new KvSource(cfg, rec.sink, { probeAfterMs: 400 });
  open.push(src);
  await src.start();
  await warmUp(
    async () => void (await eng.publish()),
    () => rec.seqs.length,
  );
  for (let i = 0; i < 3; i++) await eng.publish();
  // At once after the last live batch: whichever probe comes next is answered with them.
  const held = eng.holdBack(n);
  /** Every live message since the source's first (seq = send index) has been read. */
  const allLiveRead = (): boolean =>
    src.status().counters.messages === eng.live() - (rec.seqs[0] ?? 0);
  return { src, rec, held, allLiveRead };
}

const countersOf = (src: KvSource) => {
  const c = src.status().counters;
  return { gaps: c.gaps, recovered: c.recovered, lost: c.lost, duplicates: c.duplicates };
};

describe('KvSource probing while live copies are still on their way', () => {
  it('counts no gap and no duplicate when the live copies come after the probe answered', async () => {
    const eng = await engine();
    const { src, rec, held, allLiveRead } = await heldBackAfterWarmUp(eng, 5);
    await held.answered;
    for (const q of held.seqs) await eng.sendLate(q);
    await waitFor(allLiveRead, 'the late live copies');
    expect(countersOf(src)).toEqual({ gaps: 0, recovered: 0, lost: 0, duplicates: 0 });
    expect(src.status().counters.resets).toBe(0);
    expect(rec.gaps).toEqual([]);
    // Each batch once, in order, the held-back ones included.
    const first = rec.seqs[0]!;
    const last = held.seqs.at(-1)!;
    expect(rec.seqs).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i));
  });

  it('counts what the live stream really missed among batches the probe delivered first', async () => {
    const eng = await engine();
    const { src, rec, held, allLiveRead } = await heldBackAfterWarmUp(eng, 5);
    await held.answered;
    const [a, b, missed, c, d] = held.seqs as [number, number, number, number, number];
    for (const q of [a, b, c, d]) await eng.sendLate(q);
    await waitFor(allLiveRead, 'the late live copies');
    expect(countersOf(src)).toEqual({ gaps: 1, recovered: 1, lost: 0, duplicates: 0 });
    expect(rec.gaps).toEqual([
      expect.objectContaining({ from: missed, to: missed, recovered: 1, lost: 0 }),
    ]);
    expect(rec.seqs.slice(-5)).toEqual(held.seqs);
  });

  it('counts the whole answer as recovered once quiet, when no live copy comes', async () => {
    const eng = await engine();
    const { src, rec, held } = await heldBackAfterWarmUp(eng, 4);
    await held.answered;
    await waitFor(() => rec.gaps.length === 1, 'the gap, once quiet after the answer');
    expect(countersOf(src)).toEqual({ gaps: 1, recovered: 4, lost: 0, duplicates: 0 });
    expect(rec.gaps[0]).toEqual(
      expect.objectContaining({ from: held.seqs[0], to: held.seqs[3], recovered: 4, lost: 0 }),
    );
    expect(rec.seqs.slice(-4)).toEqual(held.seqs);
  });
});
