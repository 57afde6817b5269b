// Publishers that connect out to one bound endpoint (llm-d's pods and one address): their seqs
// would mix in one source, so the source says so, over real ZeroMQ, once a second one is connected.
import { afterEach, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import { KvSource } from '../../electron/ingest/kv-source';
import { encodeSeq } from '../../electron/wire/message';
import { waitFor } from '../support/wait-for';
import { clearedBatch, freePorts, recordingSink, sourceConfig, warmUp } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function boundSource(): Promise<{ source: KvSource; endpoint: string }> {
  const endpoint = `tcp://127.0.0.1:${await freePorts()}`;
  const source = new KvSource(sourceConfig({ endpoint, mode: 'bind' }), recordingSink().sink);
  open.push(source);
  await source.start();
  return { source, endpoint };
}

function publisherTo(endpoint: string): Publisher {
  const pub = new Publisher({ linger: 0 });
  pub.connect(endpoint);
  open.push(pub);
  return pub;
}

describe('a bound endpoint', () => {
  it('says nothing of one publisher, and that two at once mix their streams', async () => {
    const { source, endpoint } = await boundSource();
    const first = publisherTo(endpoint);
    // Its batches come in: it is connected, and alone.
    await warmUp(
      () => first.send(['', encodeSeq(0n), clearedBatch(0)]),
      () => source.status().counters.messages,
    );
    expect(source.status().lastError).toBeNull();
    publisherTo(endpoint);
    await waitFor(() => source.status().lastError !== null, 'the warning');
    expect(source.status().lastError).toMatch(
      /^2 publishers are connected to tcp:\/\/127\.0\.0\.1:\d+ at once: .*restarts, gaps and losses counted are not real/,
    );
  });
});
