import { describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/api-types';
import {
  endpointProblem as endpointError,
  normalizeProfile,
  profileErrors as validateProfile,
} from '../../shared/profile-rules';

const good: ProfileInput = {
  name: 'gpu-1',
  endpoint: 'tcp://127.0.0.1:5557',
  mode: 'connect',
  topic: '',
  replayEndpoint: null,
  dpRanks: 1,
};

describe('profile validation', () => {
  it('accepts a well-formed profile', () => {
    expect(validateProfile(good)).toEqual({});
  });

  it('explains a bad endpoint, port and missing name', () => {
    const e = validateProfile({ ...good, name: ' ', endpoint: 'localhost:5557', dpRanks: 0 });
    expect(e.name).toMatch(/name/);
    expect(e.endpoint).toMatch(/tcp:\/\/host:port/);
    expect(e.dpRanks).toMatch(/1 to 256/);
    expect(endpointError('tcp://h:70000', 'connect')).toMatch(/port/);
  });

  it('allows a wildcard host only when binding', () => {
    expect(endpointError('tcp://*:5557', 'bind')).toBeNull();
    expect(endpointError('tcp://*:5557', 'connect')).toMatch(/bind/);
    expect(endpointError('ipc:///tmp/kv.sock', 'connect')).toBeNull();
  });

  it("refuses a replay port that meets a rank's events port: each rank adds its number to both", () => {
    const dp = (replayEndpoint: string, dpRanks: number) =>
      validateProfile({ ...good, replayEndpoint, dpRanks }).replayEndpoint;
    expect(dp('tcp://127.0.0.1:5558', 2)).toMatch(
      /^Replay: With 2 data-parallel ranks .* give the replay a port from 5559 on\.$/,
    );
    expect(dp('tcp://127.0.0.1:5557', 1)).toMatch(/the events port/);
    expect(dp('tcp://127.0.0.1:5555', 4)).toMatch(/which overlap/);
    // Clear of every rank's port, or on another host: fine.
    expect(dp('tcp://127.0.0.1:5558', 1)).toBeUndefined();
    expect(dp('tcp://127.0.0.1:5559', 2)).toBeUndefined();
    expect(dp('tcp://127.0.0.1:5553', 4)).toBeUndefined();
    expect(dp('tcp://10.0.0.2:5558', 2)).toBeUndefined();
  });

  it('checks the replay endpoint only when given, and normalizes an empty one to null', () => {
    expect(validateProfile({ ...good, replayEndpoint: 'nope' }).replayEndpoint).toMatch(/Replay/);
    const n = normalizeProfile({ ...good, name: ' a ', replayEndpoint: '  ' });
    expect(n.name).toBe('a');
    expect(n.replayEndpoint).toBeNull();
  });
});
