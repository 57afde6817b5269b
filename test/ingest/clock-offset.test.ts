// An engine whose clock is off KV Scope's (a host off by 30 s, a ts that is not epoch time): the
// source measures it where its first batch arrives, over real ZeroMQ, and says it to the sink
// before that batch, and again after a restart (a new process, maybe on another host).
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import { SimPublisher } from '../../electron/sim/publisher';
import type { IngestSink } from '../../shared/records';
import { waitFor } from '../support/wait-for';
import { encodeSeq } from '../../electron/wire/message';
import { clearedBatch, sourceConfig, warmUp } from './helpers';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

/** A sink that notes what it is told, in order: 'batch', 'reset', or 'clock N'. */
function orderSink(): { sink: IngestSink; said: string[] } {
  const said: string[] = [];
  return {
    said,
    sink: {
      record: (r) => void said.push(r.k),
      clockOffset: (source, seconds) => void said.push(`clock ${seconds} ${source}`),
    },
  };
}

async function connected(clockOffsetS: number, beforeReceive?: () => Promise<void> | null) {
  const sim = await SimPublisher.start({ format: 'map', hash: 'int', seed: 3, clockOffsetS });
  open.push(sim);
  const { sink, said } = orderSink();
  const source = new KvSource(
    sourceConfig({ endpoint: sim.ranks[0]!.pubEndpoint }),
    sink,
    beforeReceive === undefined ? {} : { beforeReceive },
  );
  open.push(source);
  await source.start();
  await warmUp(
    () => sim.publish(),
    () => said.filter((k) => k === 'batch').length,
  );
  return { sim, said };
}

describe("a source's clock offset", () => {
  it('is measured at its first batch and said before it: 30 s behind is +30', async () => {
    const { sim, said } = await connected(-30);
    await sim.publish(5);
    await waitFor(() => said.filter((k) => k === 'batch').length >= 6, 'six batches');
    expect(said[0]).toBe('clock 30 src');
    expect(said.slice(1).every((k) => k === 'batch')).toBe(true);
  });

  it('is 0 for a clock within 2 s, and measured again after a restart on another clock', async () => {
    const { sim, said } = await connected(0.8);
    expect(said[0]).toBe('clock 0 src');
    // Not epoch time: an engine stamping seconds since its start.
    sim.restart(undefined, -(Date.now() / 1000) + 500);
    await sim.publish(3);
    await waitFor(() => said.includes('reset'), 'the restart');
    const after = said.slice(said.indexOf('reset'));
    expect(after[1]).toMatch(/^clock \d+ src$/);
    const offset = Number(after[1]?.split(' ')[1]);
    expect(Math.abs(offset - (Date.now() / 1000 - 500))).toBeLessThan(5);
    expect(after[2]).toBe('batch');
    expect(said.filter((k) => k.startsWith('clock'))).toHaveLength(2);
  });

  it('is measured again lower once the first batch proves to have waited in a queue', async () => {
    // KV Scope held (paused, busy) as the engine starts over: its first batches wait 3 s unread.
    let hold: Promise<void> | null = null;
    let release = (): void => {};
    const { sim, said } = await connected(0, () => hold);
    hold = new Promise((r) => (release = r));
    // The receive already waiting takes one more batch; the next wait for the hold.
    await sim.publish(1);
    await waitFor(() => said.filter((k) => k === 'batch').length >= 2, 'the batch before the hold');
    sim.restart();
    await sim.publish(3);
    await new Promise((r) => setTimeout(r, 3_000));
    hold = null;
    release();
    await waitFor(() => said.includes('reset'), 'the restart');
    await waitFor(() => said.filter((k) => k === 'batch').length >= 5, 'the queued batches');
    // The first of the new run read 3 s late: +3, as a clock 3 s behind would.
    const after = said.slice(said.indexOf('reset'));
    expect(after[1]).toMatch(/^clock [34] src$/);
    // Live again (measured at most once a second), a batch read as it comes shows the queue:
    // measured again, 0.
    await new Promise((r) => setTimeout(r, 1_100));
    await sim.publish(2);
    await waitFor(() => said.at(-1) === 'batch' && said.includes('clock 0 src', 1), 'a live batch');
    const clocks = said.filter((k) => k.startsWith('clock'));
    expect(clocks).toEqual(['clock 0 src', after[1], 'clock 0 src']);
    // Said before the batch that showed it.
    expect(said[said.lastIndexOf('clock 0 src') + 1]).toBe('batch');
  });

  it('is measured at most once a second for a ts that runs faster than time', async () => {
    // Each batch's ts one second past the one before, sent flat out: every other batch would
    // measure it 2 s lower, and write it to the recording.
    const pub = new Publisher({ linger: 0 });
    await pub.bind('tcp://127.0.0.1:*');
    open.push({ close: async () => pub.close() });
    const { sink, said } = orderSink();
    const source = new KvSource(sourceConfig({ endpoint: pub.lastEndpoint! }), sink);
    open.push(source);
    await source.start();
    let seq = 0;
    const send = () => pub.send(['kv-events', encodeSeq(BigInt(seq)), clearedBatch(seq++)]);
    await warmUp(send, () => said.filter((k) => k === 'batch').length);
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      await send();
      if (seq % 32 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    // What the publisher's queue held is taken (a drop at its high-water mark is no matter here).
    await new Promise((r) => setTimeout(r, 300));
    expect(said.filter((k) => k === 'batch').length).toBeGreaterThan(500);
    const clocks = said.filter((k) => k.startsWith('clock')).map((k) => Number(k.split(' ')[1]));
    expect(clocks.length).toBeGreaterThanOrEqual(2);
    expect(clocks.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < clocks.length; i++) expect(clocks[i]!).toBeLessThan(clocks[i - 1]!);
  });
});
