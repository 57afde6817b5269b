import { describe, expect, it } from 'vitest';
import { BRIDGE_METHODS, type InvokeChannel } from '../../shared/contract';
import { ARG_SCHEMAS, parseArgs } from '../../shared/schemas';

const profile = {
  name: 'engine 0',
  endpoint: 'tcp://10.0.0.5:5557',
  mode: 'connect',
  topic: 'kv-events',
  replayEndpoint: null,
  dpRanks: 1,
};

describe('argument validation', () => {
  it('has a schema for every channel of the contract', () => {
    expect(Object.keys(ARG_SCHEMAS).sort()).toEqual(Object.values(BRIDGE_METHODS).sort());
  });

  it('accepts well-formed calls', () => {
    expect(parseArgs('profiles:save', [profile])).toEqual([profile]);
    expect(parseArgs('model:series', [{ rangeSec: null }])).toEqual([{ rangeSec: null }]);
    expect(parseArgs('session:open-data', ['a.gz', new Uint8Array(3)])[1]).toHaveLength(3);
  });

  it.each<[InvokeChannel, unknown[], RegExp]>([
    ['profiles:save', [{ ...profile, endpoint: 'http://x' }], /endpoint looks like tcp:/],
    ['profiles:save', [{ ...profile, name: '' }], /give the connection a name/],
    ['profiles:save', [{ ...profile, endpoint: 'tcp://h:99999' }], /port must be from 1 to 65535/],
    ['profiles:save', [{ ...profile, dpRanks: 0 }], /dpRanks/],
    ['profiles:save', [{ ...profile, extra: 1 }], /profiles:save/],
    ['profiles:delete', [42], /argument 0/],
    ['model:series', [{ rangeSec: -5 }], /rangeSec/],
    ['model:chains', [{ sort: 'bogus', desc: true, offset: 0, limit: 10 }], /sort/],
    ['model:events', [{ offset: 0, limit: 1e9 }], /limit/],
    ['frames:ack', ['1'], /frames:ack/],
    ['session:open-data', ['x', 'not bytes'], /session:open-data/],
    ['demo:set', [], /demo:set/],
  ])(
    'refuses a bad call to %s with a message that says what is wrong',
    (channel, args, message) => {
      expect(() => parseArgs(channel, args)).toThrow(message);
    },
  );

  it('no channel takes a file path: the file actions take no argument at all', () => {
    for (const channel of [
      'session:open',
      'session:save-as',
      'session:import-capture',
      'export:rates-csv',
    ] as const) {
      expect(() => parseArgs(channel, ['/etc/passwd'])).toThrow();
      expect(parseArgs(channel, [])).toEqual([]);
    }
  });
});
