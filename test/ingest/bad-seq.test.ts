// One frame with a garbled seq (2^62 in a stream at 16) must not swallow the stream: it is a bad
// frame, counted once, and the lost counter stays exact. A real PUB socket on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import { encodeSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { clearedBatch, recordingSink, sourceConfig, warmUp } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

describe('a live frame with an absurd seq', () => {
  it('is counted as a bad frame and never moves the cursor: no reset, no gap, nothing lost', async () => {
    const pub = new Publisher({ linger: 0 });
    await pub.bind('tcp://127.0.0.1:*');
    open.push(pub);
    const rec = recordingSink();
    const s = new KvSource(
      sourceConfig({ name: 'hostile', endpoint: pub.lastEndpoint! }),
      rec.sink,
      {},
    );
    open.push(s);
    await s.start();
    let next = 0;
    const send = (seq: bigint, body: Buffer) => pub.send(['kv-events', encodeSeq(seq), body]);
    await warmUp(
      () => send(BigInt(next), clearedBatch(next++)),
      () => rec.seqs.length,
    );
    while (next <= 16) await send(BigInt(next), clearedBatch(next++));
    await send(2n ** 62n, clearedBatch(99));
    while (next <= 20) await send(BigInt(next), clearedBatch(next++));
    await waitFor(() => rec.seqs.at(-1) === 20, 'seq 20');
    const c = s.status().counters;
    expect([c.gaps, c.lost, c.resets, c.duplicates]).toEqual([0, 0, 0, 0]);
    expect(c.undecoded).toBe(1);
    expect(rec.undecoded).toEqual([
      expect.objectContaining({
        seq: null,
        error: expect.stringMatching(/^SeqError: seq 4611686018427387904 /),
      }),
    ]);
    expect(rec.undecoded[0]!.error).toContain('the newest seq was 16');
    expect(rec.seqs.slice(-5)).toEqual([16, 17, 18, 19, 20]);
    expect(rec.gaps).toEqual([]);
  });
});
