// Closing a source while its publisher sends flat out: nothing is handled once close() has run
// (a message whose receive resolved after it turned a disconnected source "connected" again, and
// was counted and recorded after the close).
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import { encodeSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { clearedBatch, recordingSink, sourceConfig } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

describe('a source closed while messages arrive', () => {
  it('stays closed and takes nothing more, whenever the close comes', async () => {
    const pub = new Publisher({ linger: 0, sendHighWaterMark: 100_000 });
    await pub.bind('tcp://127.0.0.1:*');
    open.push(pub);
    let publishing = true;
    let seq = 0;
    const flood = (async () => {
      while (publishing) {
        await pub.send(['kv-events', encodeSeq(BigInt(seq)), clearedBatch(seq)]);
        seq += 1;
        if (seq % 64 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    for (let round = 0; round < 20; round++) {
      const rec = recordingSink();
      const s = new KvSource(
        sourceConfig({ id: `src${round}`, endpoint: pub.lastEndpoint! }),
        rec.sink,
        {},
      );
      await s.start();
      await waitFor(() => rec.seqs.length > round * 3, 'messages flowing');
      const states: string[] = [];
      s.onStatus((h) => states.push(h.state));
      // close() first handles, at once, what was received and waits in the burst (nothing received
      // is lost); from then on nothing more.
      void s.close();
      const delivered = rec.seqs.length;
      const counted = s.status().counters.messages;
      // Whatever was resolved or queued when close() ran has had its turn now.
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(s.status().state).toBe('closed');
      expect(s.status().counters.messages).toBe(counted);
      expect(rec.seqs.length).toBe(delivered);
      expect(states).toEqual(['closed']);
    }
    publishing = false;
    await flood;
  });
});
