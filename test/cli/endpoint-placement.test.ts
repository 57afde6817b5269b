// Which --endpoint a --replay-endpoint, --dp or --engine-metrics is for, through commander's own
// parse of a command line: the one right before it, or one for every --endpoint in their order;
// anything else could mean two things and is refused (taken in order, a replay given after the
// second endpoint went to the first, mixing another engine's blocks into it).
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  addEndpointOptions,
  endpointsFromFlags,
  type EndpointFlags,
} from '../../electron/cli/endpoint-options';

const A = 'tcp://127.0.0.1:5557';
const B = 'tcp://127.0.0.1:6557';
const RA = 'tcp://127.0.0.1:5558';
const RB = 'tcp://127.0.0.1:6600';
const MA = 'http://127.0.0.1:8000/metrics';
const MB = 'http://127.0.0.1:9000/metrics';

/** The connections a command line describes: (endpoint, replay, ranks, metrics) each. */
function connections(args: string[]): [string, string | null, number, string | null][] {
  const cmd = addEndpointOptions(new Command('serve')).exitOverride();
  cmd.parse(args, { from: 'user' });
  return endpointsFromFlags(cmd.opts<EndpointFlags>()).map((p) => [
    p.endpoint,
    p.replayEndpoint,
    p.dpRanks,
    p.metricsUrl ?? null,
  ]);
}

describe('the per-endpoint flags', () => {
  it('are for the --endpoint right before them', () => {
    expect(connections(['--endpoint', A, '--endpoint', B, '--replay-endpoint', RB])).toEqual([
      [A, null, 1, null],
      [B, RB, 1, null],
    ]);
    expect(
      connections([
        '--endpoint',
        A,
        '--replay-endpoint',
        RA,
        '--endpoint',
        B,
        '--replay-endpoint',
        RB,
        '--dp',
        '2',
      ]),
    ).toEqual([
      [A, RA, 1, null],
      [B, RB, 2, null],
    ]);
    expect(connections(['--endpoint', A, '--engine-metrics', MA, '--endpoint', B])).toEqual([
      [A, null, 1, MA],
      [B, null, 1, null],
    ]);
  });

  it('go in order when one is given for every --endpoint (as deploy/README.md writes them)', () => {
    expect(
      connections([
        '--endpoint',
        A,
        '--endpoint',
        B,
        '--engine-metrics',
        MA,
        '--engine-metrics',
        MB,
      ]),
    ).toEqual([
      [A, null, 1, MA],
      [B, null, 1, MB],
    ]);
    expect(connections(['--replay-endpoint', RA, '--endpoint', A])).toEqual([[A, RA, 1, null]]);
  });

  it('are refused where they could mean two things, saying how to write them', () => {
    expect(() => connections(['--replay-endpoint', RA, '--endpoint', A, '--endpoint', B])).toThrow(
      /^--replay-endpoint: 1 given for 2 --endpoint, not each right after its own: put each right after the --endpoint it is for/,
    );
    expect(() =>
      connections(['--endpoint', A, '--dp', '2', '--dp', '3', '--endpoint', B, '--endpoint', A]),
    ).toThrow(/^--dp: 2 given for 3 --endpoint, not each right after its own/);
    expect(() => connections(['--endpoint', A, '--dp', '2', '--dp', '2'])).toThrow(
      /^--dp: 2 given for 1 --endpoint: give one per endpoint/,
    );
  });
});
