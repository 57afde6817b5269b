// A connection names its engine's metrics URL: checked where it is entered (profile schema, CLI).
import { describe, expect, it } from 'vitest';
import { endpointsFromFlags } from '../../electron/cli/endpoint-options';
import { normalizeProfile, profileErrors, profileInputSchema } from '../../shared/profile-rules';

const base = {
  name: 'engine',
  endpoint: 'tcp://127.0.0.1:5557',
  mode: 'connect',
  topic: '',
  replayEndpoint: null,
  dpRanks: 1,
};

const flags = (over: object) => ({
  endpoint: ['tcp://127.0.0.1:5557'],
  topic: '',
  bind: false,
  demo: false,
  engineMetrics: [],
  replayEndpoint: [],
  dp: [],
  ...over,
});

describe('the engine metrics URL of a connection', () => {
  it('is optional, and an http(s) URL when given', () => {
    expect(profileInputSchema.safeParse(base).success).toBe(true);
    expect(profileInputSchema.safeParse({ ...base, metricsUrl: null }).success).toBe(true);
    const ok = profileInputSchema.safeParse({ ...base, metricsUrl: ' http://gpu-1:8000/metrics ' });
    expect(ok.success && ok.data.metricsUrl).toBe('http://gpu-1:8000/metrics');
    const bad = profileInputSchema.safeParse({ ...base, metricsUrl: 'tcp://gpu-1:8000' });
    expect(bad.error?.issues[0]?.message).toBe(
      'an engine metrics URL looks like http://127.0.0.1:8000/metrics',
    );
  });

  it('survives the form: normalized (trimmed, empty as none), and a bad one is its field error', () => {
    const form = { ...base, mode: 'connect' as const, metricsUrl: ' http://gpu-1:8000/metrics ' };
    expect(normalizeProfile(form).metricsUrl).toBe('http://gpu-1:8000/metrics');
    expect(normalizeProfile({ ...form, metricsUrl: '  ' }).metricsUrl).toBeNull();
    expect(normalizeProfile({ ...form, metricsUrl: undefined })).not.toHaveProperty('metricsUrl');
    expect(profileErrors({ ...form, metricsUrl: 'gpu-1:8000' }).metricsUrl).toBe(
      'An engine metrics URL looks like http://127.0.0.1:8000/metrics.',
    );
  });

  it('comes from --engine-metrics, for the --endpoint before it, and a bad one names the flag', () => {
    const two = endpointsFromFlags(
      flags({
        endpoint: ['tcp://127.0.0.1:5557', 'tcp://127.0.0.1:6557'],
        engineMetrics: [{ value: 'http://127.0.0.1:8000/metrics', after: 2 }],
      }),
    );
    expect(two.map((p) => p.metricsUrl)).toEqual([null, 'http://127.0.0.1:8000/metrics']);
    expect(() => endpointsFromFlags(flags({ engineMetrics: ['ftp://x/metrics'] }))).toThrow(
      /^--engine-metrics: an engine metrics URL looks like/,
    );
    expect(() =>
      endpointsFromFlags(flags({ engineMetrics: ['http://a/m', 'http://b/m'] })),
    ).toThrow(/2 given for 1 --endpoint/);
  });
});
