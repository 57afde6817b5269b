import { describe, expect, it } from 'vitest';
import {
  expandProfile,
  rankEndpoint,
  subscribesTwice,
  validateEndpoint,
  type SourceConfig,
} from '../../electron/ingest/source-config';

const profile = {
  id: 'p1',
  name: 'engine',
  endpoint: 'tcp://10.0.0.5:5557',
  mode: 'connect' as const,
  topic: 'kv',
  replayEndpoint: 'tcp://10.0.0.5:5600',
  dpRanks: 3,
};

describe('one publisher subscribed twice', () => {
  const config = (endpoint: string, topic = '', mode: 'connect' | 'bind' = 'connect') =>
    expandProfile({
      ...profile,
      dpRanks: 1,
      endpoint,
      topic,
      mode,
      replayEndpoint: null,
    })[0] as SourceConfig;
  it('is one endpoint under two loopback names, or one host in two cases, with topics that overlap', () => {
    const a = config('tcp://127.0.0.1:5557');
    for (const e of [
      'tcp://127.0.0.1:5557',
      'tcp://localhost:5557',
      'tcp://[::1]:5557',
      'tcp://LOCALHOST:5557',
    ])
      expect(subscribesTwice(a, config(e))).toBe(true);
    expect(subscribesTwice(config('tcp://gpu-box:5557'), config('tcp://GPU-Box:5557'))).toBe(true);
    expect(subscribesTwice(a, config('tcp://localhost:5557', 'kv'))).toBe(true);
  });
  it('is not another port, another host, topics apart, or a bound socket', () => {
    const a = config('tcp://127.0.0.1:5557', 'kv-a');
    expect(subscribesTwice(a, config('tcp://localhost:5558', 'kv-a'))).toBe(false);
    expect(subscribesTwice(a, config('tcp://10.0.0.5:5557', 'kv-a'))).toBe(false);
    expect(subscribesTwice(a, config('tcp://localhost:5557', 'kv-b'))).toBe(false);
    expect(
      subscribesTwice(config('tcp://*:5557', '', 'bind'), config('tcp://*:5557', '', 'bind')),
    ).toBe(false);
  });
});

describe('source configs', () => {
  it('expands data-parallel rank r onto base port + r, replay port likewise, ids id then id#r', () => {
    const cfgs = expandProfile(profile);
    expect(cfgs.map((c) => [c.id, c.endpoint, c.replayEndpoint])).toEqual([
      ['p1', 'tcp://10.0.0.5:5557', 'tcp://10.0.0.5:5600'],
      ['p1#1', 'tcp://10.0.0.5:5558', 'tcp://10.0.0.5:5601'],
      ['p1#2', 'tcp://10.0.0.5:5559', 'tcp://10.0.0.5:5602'],
    ]);
    expect(
      cfgs.every((c) => c.profileId === 'p1' && c.topic === 'kv' && c.mode === 'connect'),
    ).toBe(true);
  });

  it('keeps a single-rank profile as one source with the profile id and no replay when none is set', () => {
    const [only, ...rest] = expandProfile({ ...profile, dpRanks: 1, replayEndpoint: null });
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ id: 'p1', name: 'engine', replayEndpoint: null });
  });

  it('accepts tcp (names, IPv4, [IPv6], *), ipc and inproc endpoints', () => {
    for (const ep of [
      'tcp://localhost:5557',
      'tcp://127.0.0.1:1',
      'tcp://[::1]:5557',
      'tcp://*:5557',
      'ipc:///tmp/kv.sock',
      'inproc://kv',
    ]) {
      expect(() => validateEndpoint(ep)).not.toThrow();
    }
  });

  it('rejects bad endpoints with a message that says what a good one looks like', () => {
    expect(() => validateEndpoint('')).toThrow(/empty.*tcp:\/\/127\.0\.0\.1:5557/);
    expect(() => validateEndpoint('localhost:5557')).toThrow(/tcp:\/\/host:port/);
    expect(() => validateEndpoint('http://x:1')).toThrow(/not a ZeroMQ endpoint/);
    expect(() => validateEndpoint('tcp://host')).toThrow(/tcp:\/\/host:port/);
    expect(() => validateEndpoint('tcp://host:70000')).toThrow(/1 to 65535/);
    expect(() => validateEndpoint('ipc://')).toThrow(/no path/);
    expect(() => expandProfile({ ...profile, endpoint: 'nope' })).toThrow(/endpoint of "engine"/);
    expect(() => expandProfile({ ...profile, dpRanks: 0 })).toThrow(/ranks/);
  });

  it('cannot derive rank ports past 65535 or from a wildcard port', () => {
    expect(() => rankEndpoint('tcp://h:65535', 1)).toThrow(/65535/);
    expect(() => rankEndpoint('tcp://*:*', 1)).toThrow(/wildcard/);
    expect(rankEndpoint('ipc:///tmp/kv', 2)).toBe('ipc:///tmp/kv-2');
  });
});
