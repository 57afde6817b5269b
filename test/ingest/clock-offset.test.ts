// An engine whose clock is off KV Scope's (a host off by 30 s, a ts that is not epoch time): the
// source measures it where its first batch arrives, over real ZeroMQ, and says it to the sink
// before that batch, and again after a restart (a new process, maybe on another host).
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import { SimPublisher } from '../../electron/sim/publisher';
import type { IngestSink } from '../../shared/records';
import { waitFor } from '../support/wait-for';
import { sourceConfig, warmUp } from './helpers';

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

async function connected(clockOffsetS: number) {
  const sim = await SimPublisher.start({ format: 'map', hash: 'int', seed: 3, clockOffsetS });
  open.push(sim);
  const { sink, said } = orderSink();
  const source = new KvSource(sourceConfig({ endpoint: sim.ranks[0]!.pubEndpoint }), sink);
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
});
