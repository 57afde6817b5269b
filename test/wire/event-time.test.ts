import { Encoder } from '@msgpack/msgpack';
import { Publisher } from 'zeromq';
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import { CacheModel } from '../../electron/model/cache-model';
import { seqFrame } from '../../electron/sim/rank';
import { decodeBatch, type DecodeResult } from '../../electron/wire/decode-batch';
import { MAX_ABS_TS_SEC } from '../../shared/event-bounds';
import type { IngestRecord } from '../../shared/records';
import { waitFor } from '../support/wait-for';

const encoder = new Encoder({ useBigInt64: true });
const enc = (value: unknown): Uint8Array => encoder.encode(value);
const T0 = 1_767_225_600;

const storedEvent = (h: bigint) => ({
  type: 'BlockStored',
  block_hashes: [h],
  parent_block_hash: null,
  token_ids: [1, 2],
  block_size: 2,
  medium: 'GPU',
});
const removedEvent = ['BlockRemoved', [5n], 'GPU'];

type Ok = Extract<DecodeResult, { ok: true }>;
function ok(r: DecodeResult): Ok {
  if (!r.ok) throw new Error(`expected a decoded batch, got ${r.error}`);
  return r;
}

describe('decodeBatch: event time', () => {
  it.each([
    ['1e16', 1e16, /out of range/],
    ['-1e16', -1e16, /out of range/],
    ['+Infinity', Infinity, /\+Infinity/],
    ['-Infinity', -Infinity, /-Infinity/],
    ['NaN', NaN, /NaN/],
  ])('keeps every event of a batch with ts %s as an event error and applies none', (_, ts, why) => {
    for (const payload of [
      enc([ts, [storedEvent(1n), removedEvent]]),
      enc({ ts, events: [storedEvent(1n), removedEvent], data_parallel_rank: 0 }),
    ]) {
      const r = ok(decodeBatch(payload));
      expect(r.ts).toBeNull();
      expect(r.events).toEqual([]);
      expect(r.errors.map((e) => e.idx)).toEqual([0, 1]);
      for (const e of r.errors) {
        expect(e.error).toMatch(/^EventTimeError: batch ts/);
        expect(e.error).toMatch(why);
      }
    }
  });

  it('says what to check for a ts in milliseconds', () => {
    const r = ok(decodeBatch(enc([T0 * 1000, [removedEvent]])));
    expect(r.errors[0]?.error).toMatch(/milliseconds or nanoseconds/);
  });

  it('keeps a bad event of a batch with a bad ts as its own error, in event order', () => {
    const r = ok(decodeBatch(enc([Infinity, [['BlockStored', 'not hashes'], removedEvent]])));
    expect(r.errors).toHaveLength(2);
    expect(r.errors[0]?.idx).toBe(0);
    expect(r.errors[0]?.error).not.toMatch(/EventTimeError/);
    expect(r.errors[1]?.error).toMatch(/EventTimeError/);
  });

  it.each([0, 0.25, -3600, 3.5e6, T0, MAX_ABS_TS_SEC, -MAX_ABS_TS_SEC])(
    'accepts a sane-but-odd clock: ts %s',
    (ts) => {
      const r = ok(decodeBatch(enc([ts, [removedEvent]])));
      expect(r.ts).toBe(ts);
      expect(r.events).toHaveLength(1);
      expect(r.errors).toEqual([]);
    },
  );
});

describe('live: an absurd batch time over real ZeroMQ', () => {
  const open: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
  });

  it('1e16, +Infinity and NaN become counted event errors and the chart series stays bounded', async () => {
    const pub = new Publisher({ linger: 0 });
    open.push(pub);
    await pub.bind('tcp://127.0.0.1:0');
    const model = new CacheModel();
    const got: IngestRecord[] = [];
    const src = new KvSource(
      {
        id: 'e',
        name: 'engine',
        endpoint: pub.lastEndpoint as string,
        mode: 'connect',
        topic: '',
        replayEndpoint: null,
        profileId: null,
      },
      {
        record(r) {
          got.push(r);
          model.apply(r);
        },
      },
    );
    open.push(src);
    await src.start();
    let seq = 0n;
    const send = (ts: number, h: bigint) =>
      pub.send(['kv', seqFrame(seq++), enc([ts, [storedEvent(h)]])]);
    // ZeroMQ's slow joiner drops what is sent before the subscription lands.
    const until = Date.now() + 8000;
    while (got.length === 0) {
      if (Date.now() > until) throw new Error('no batch arrived');
      await send(T0, 1n);
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = model.kpis().events;
    await send(1e16, 2n);
    await send(Infinity, 3n);
    await send(NaN, 4n);
    await send(T0 + 5, 5n);
    await waitFor(() => model.kpis().events === before + 1, 'the good batch after the bad ones');
    const errors = got.filter((r) => r.k === 'event-error');
    expect(errors).toHaveLength(3);
    expect(src.status().counters.eventErrors).toBe(3);
    for (const rangeSec of [null, 60]) {
      const s = model.series({ rangeSec, maxPoints: 600 });
      expect(s.points.length).toBeLessThanOrEqual(600);
      expect(s.points.at(-1)?.t).toBeLessThanOrEqual(T0 + 5);
      expect(s.points.reduce((a, p) => a + p.stored, 0)).toBeGreaterThan(0);
    }
    expect(model.nowTs()).toBe(T0 + 5);
  });
});
