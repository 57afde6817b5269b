// llm-d topics name their source: the parser's shapes, and a live source over real ZeroMQ.
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import { llmdTopicSource, topicSourceName } from '../../electron/ingest/topic-name';
import { SimPublisher } from '../../electron/sim/publisher';
import { waitFor } from '../support/wait-for';
import { recordingSink } from './helpers';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

describe('llmdTopicSource', () => {
  it('reads the pod address, port and model of kv@<pod-ip>:<port>@<model>', () => {
    expect(llmdTopicSource(`kv@10.244.1.17:8000@${MODEL}`)).toEqual({
      pod: '10.244.1.17',
      port: 8000,
      model: MODEL,
    });
    expect(llmdTopicSource('kv@[fd00::1a]:5557@Qwen/Qwen3-32B')).toEqual({
      pod: '[fd00::1a]',
      port: 5557,
      model: 'Qwen/Qwen3-32B',
    });
    expect(topicSourceName({ pod: '10.244.1.17', port: 8000, model: MODEL })).toBe(
      `${MODEL} @ 10.244.1.17:8000`,
    );
  });

  it('takes nothing from topics of another shape', () => {
    for (const t of [
      '',
      'kv-events',
      'kv@10.0.0.1@model',
      'kv@10.0.0.1:0@model',
      'kv@10.0.0.1:70000@model',
      'kv@10.0.0.1:8000@',
      'kv@10.0.0.1:8000@a model with spaces',
      `kv@10.0.0.1:8000@${'m'.repeat(129)}`,
    ]) {
      expect(llmdTopicSource(t), t).toBeNull();
    }
  });
});

async function simWithTopic(topic: string): Promise<SimPublisher> {
  const sim = await SimPublisher.start({ format: 'map', hash: 'int', seed: 5, rate: 100, topic });
  open.push(sim);
  return sim;
}

async function liveSource(endpoint: string, name: string): Promise<KvSource> {
  const rec = recordingSink();
  const s = new KvSource(
    {
      id: 'src',
      name,
      endpoint,
      mode: 'connect',
      topic: '',
      replayEndpoint: null,
      profileId: null,
    },
    rec.sink,
  );
  open.push(s);
  await s.start();
  await waitFor(() => rec.events.length > 0, 'the first events');
  return s;
}

describe('a source named by its llm-d topic', () => {
  it('takes the pod and model as its name when it was given none (its name is its endpoint)', async () => {
    const sim = await simWithTopic(`kv@10.244.1.17:8000@${MODEL}`);
    const endpoint = sim.ranks[0]!.pubEndpoint;
    const s = await liveSource(endpoint, endpoint);
    expect(s.status().name).toBe(`${MODEL} @ 10.244.1.17:8000`);
    expect(s.status().endpoint).toBe(endpoint);
  });

  it('keeps a name the user gave, and the endpoint for a topic of another shape', async () => {
    const named = await simWithTopic(`kv@10.244.1.18:8000@${MODEL}`);
    const s = await liveSource(named.ranks[0]!.pubEndpoint, 'prod engine 2');
    expect(s.status().name).toBe('prod engine 2');
    const plain = await simWithTopic('kv-events');
    const endpoint = plain.ranks[0]!.pubEndpoint;
    const t = await liveSource(endpoint, endpoint);
    expect(t.status().name).toBe(endpoint);
  });
});
