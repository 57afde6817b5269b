// An engine that starts after KV Scope subscribed: what it publishes before our subscription
// reaches it (ZeroMQ's slow joiner; here the sim's PUB drops seqs 0..4 to make it certain) is a
// gap from seq 0, recovered over replay or counted lost; a publisher that was up already is a
// mid-stream join, as before. Real sockets on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import { SimPublisher } from '../../electron/sim/publisher';
import { waitFor } from '../support/wait-for';
import { freePorts, recordingSink, sourceConfig, warmUp } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const MISSED = 5n;

async function sim(port: number, replayPort: number | false): Promise<SimPublisher> {
  const s = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    seed: 5,
    port,
    replay: replayPort,
    faults: { dropFromPub: (seq) => seq < MISSED },
  });
  open.push(s);
  return s;
}

async function source(pubPort: number, replayPort: number | null) {
  const rec = recordingSink();
  const src = new KvSource(
    sourceConfig({
      endpoint: `tcp://127.0.0.1:${pubPort}`,
      replayEndpoint: replayPort === null ? null : `tcp://127.0.0.1:${replayPort}`,
    }),
    rec.sink,
    { replayIdleMs: 300, probeAfterMs: 3_600_000 },
  );
  open.push(src);
  await src.start();
  return { src, rec };
}

/** Publishes until the source took a batch, then 10 more, and waits for the sim's last seq. */
async function publishAndSettle(s: SimPublisher, rec: ReturnType<typeof recordingSink>) {
  await warmUp(
    () => s.publish(),
    () => rec.seqs.length,
  );
  await s.publish(10);
  const last = s.stats().ranks[0]!.lastSeq!;
  await waitFor(() => rec.seqs.at(-1) === last, 'the last batch');
  return last;
}

/** Long enough for libzmq to have been refused at least once (it retries every 100 ms). */
const refused = () => new Promise((r) => setTimeout(r, 500));

describe('KvSource and an engine that starts after it subscribed', () => {
  it('recovers the batches published before its subscription arrived, from seq 0', async () => {
    const [pub, replay] = await freePorts(2).then((p) => [p, p + 1] as const);
    const { src, rec } = await source(pub, replay);
    await refused();
    const s = await sim(pub, replay);
    const last = await publishAndSettle(s, rec);
    expect(rec.seqs).toEqual(Array.from({ length: last + 1 }, (_, i) => i));
    expect(rec.gaps).toHaveLength(1);
    expect(rec.gaps[0]).toMatchObject({ from: 0, lost: 0 });
    expect(rec.gaps[0]!.recovered).toBeGreaterThanOrEqual(Number(MISSED));
    expect(src.status().counters).toMatchObject({ lost: 0, resets: 0 });
  });

  it('without a replay endpoint, counts them lost in a gap from seq 0', async () => {
    const [pub] = await freePorts(1).then((p) => [p] as const);
    const { src, rec } = await source(pub, null);
    await refused();
    const s = await sim(pub, false);
    await publishAndSettle(s, rec);
    const first = rec.seqs[0]!;
    expect(first).toBeGreaterThanOrEqual(Number(MISSED));
    expect(rec.gaps).toEqual([expect.objectContaining({ from: 0, to: first - 1, lost: first })]);
    expect(src.status().counters.lost).toBe(first);
  });

  it('a publisher that was up already is joined mid-stream: no gap for what came before', async () => {
    const [pub, replay] = await freePorts(2).then((p) => [p, p + 1] as const);
    const s = await sim(pub, replay);
    const { src, rec } = await source(pub, replay);
    await publishAndSettle(s, rec);
    expect(rec.seqs[0]!).toBeGreaterThanOrEqual(Number(MISSED));
    expect(rec.gaps).toEqual([]);
    expect(src.status().counters).toMatchObject({ lost: 0, recovered: 0, gaps: 0 });
  });
});
