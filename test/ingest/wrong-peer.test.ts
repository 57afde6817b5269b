// A source whose endpoint first answered as ZeroMQ of the wrong type (another subscriber, the
// replay port's ROUTER, or a TCP self-connect on an ephemeral port) must still hear the publisher
// started there later: libzmq ends such a connection for good, with no retry of its own.
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher, Router, Subscriber } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import { encodeSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { clearedBatch, recordingSink, sourceConfig, warmUp } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

/** Binds a publisher on `endpoint` once the wrong peer's port is free again. */
async function publisherOn(endpoint: string): Promise<Publisher> {
  const until = Date.now() + 10_000;
  for (;;) {
    const pub = new Publisher({ linger: 0 });
    try {
      await pub.bind(endpoint);
      return pub;
    } catch (e) {
      pub.close();
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe('a source whose endpoint first answers as the wrong kind of ZeroMQ socket', () => {
  for (const [kind, make] of [
    ['a subscriber', () => new Subscriber({ linger: 0 })],
    ['a router (the replay port)', () => new Router({ linger: 0 })],
  ] as const) {
    it(`hears the publisher started there after ${kind} left`, async () => {
      const wrong = make();
      await wrong.bind('tcp://127.0.0.1:*');
      const endpoint = wrong.lastEndpoint!;
      let accepted = 0;
      wrong.events.on('accept', () => accepted++);
      const rec = recordingSink();
      const s = new KvSource(sourceConfig({ endpoint, stallAfterSec: 1 }), rec.sink, {});
      open.push(s);
      await s.start();
      await waitFor(() => accepted >= 1, 'the source to reach the wrong peer');
      // The hint names the likely mistake, and the state does not claim a publisher.
      await waitFor(() => s.status().hint !== null, 'the hint');
      expect(s.status().hint).toMatch(/does not answer as a ZeroMQ publisher/);
      expect(s.status().state).toBe('connecting');
      wrong.close();

      const pub = await publisherOn(endpoint);
      open.push(pub);
      let next = 0;
      await warmUp(
        () => pub.send(['kv-events', encodeSeq(BigInt(next)), clearedBatch(next++)]),
        () => rec.seqs.length,
        'a batch from the publisher started after the wrong peer',
      );
      expect(s.status().state).toBe('connected');
      expect(rec.seqs.length).toBeGreaterThan(0);
    });
  }
});
