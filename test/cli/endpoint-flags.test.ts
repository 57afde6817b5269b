// `kvscope collect` (and serve, desktop: the same flags) takes what the Connections form has per
// connection: --replay-endpoint and --dp each for the --endpoint in the same place, as
// --engine-metrics is. Real simulators on loopback, the built CLI, its /metrics.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePromText } from '../../electron/metrics/prom-text';
import { SimPublisher } from '../../electron/sim/publisher';
import { ensureBuilt } from '../support/built-app';
import { runCli, type CliProcess } from '../support/e2e-harness';
import { eventually, waitFor } from '../support/wait-for';

beforeAll(() => ensureBuilt(), 180_000);

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function sim(dp: number, seed: number): Promise<SimPublisher> {
  const s = await SimPublisher.start({
    format: 'array',
    hash: 'int',
    rate: 0,
    seed,
    dp,
    replay: true,
  });
  cleanup.push(() => s.close());
  return s;
}

/** Runs the built CLI (killed after the test if still running). */
function run(args: string[]): CliProcess {
  const c = runCli(args);
  cleanup.push(() => c.stop());
  return c;
}

describe('the endpoint flags, per --endpoint', () => {
  it('subscribes each rank of each --dp and asks each engine its own --replay-endpoint', async () => {
    const a = await sim(2, 5);
    const b = await sim(1, 6);
    const [a0, a1] = a.ranks;
    const [b0] = b.ranks;
    const c = run([
      'collect',
      '--endpoint',
      a0?.pubEndpoint ?? '',
      '--replay-endpoint',
      a0?.replayEndpoint ?? '',
      '--dp',
      '2',
      '--endpoint',
      b0?.pubEndpoint ?? '',
      '--replay-endpoint',
      b0?.replayEndpoint ?? '',
      '--metrics-port',
      '0',
    ]);
    await waitFor(() => /metrics on (\S+)/.test(c.stdout()), 'the metrics URL');
    const url = /metrics on (\S+)/.exec(c.stdout())?.[1] ?? '';
    // Every rank of both engines heard (ZeroMQ drops what comes before a subscription is made).
    const messagesBySource = async () => {
      await Promise.all([a.publish(1), b.publish(1)]);
      const text = await (await fetch(url)).text();
      return parsePromText(text).samples.filter(
        (x) => x.name === 'kvscope_messages_total' && x.value > 0,
      );
    };
    const heard = await eventually(messagesBySource, (x) => x.length === 3, 'three sources');
    expect(heard).toHaveLength(3);
    // Quiet, each source with a replay endpoint asks its engine for anything newer: every rank of
    // a (rank 1 on the replay port + 1) and b's own, not only the first --endpoint's.
    await waitFor(
      () =>
        [a.replayRequests(0), a.replayRequests(1), b.replayRequests(0)].every((r) => r.length > 0),
      'a replay request on every rank of both engines',
      30_000,
    );
    expect(a1?.pubEndpoint).not.toBe(a0?.pubEndpoint);
    c.child.kill('SIGINT');
    expect(await c.exited).toBe(0);
  });

  it('refuses more --dp or --replay-endpoint than --endpoint, and a --dp out of range, naming the flag', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--dp', '2', '--dp', '2'],
        /^kvscope: --dp: 2 given for 1 --endpoint: give one per endpoint/m,
      ],
      [
        ['--replay-endpoint', 'tcp://127.0.0.1:5558', '--replay-endpoint', 'tcp://127.0.0.1:6558'],
        /^kvscope: --replay-endpoint: 2 given for 1 --endpoint/m,
      ],
      [['--dp', '0'], /^kvscope: --dp: data-parallel ranks: a whole number from 1 to 256/m],
      [['--dp', 'two'], /^kvscope: --dp: data-parallel ranks: a whole number from 1 to 256/m],
      // Rank 1 would publish on rank 0's replay port: no engine starts so.
      [
        ['--replay-endpoint', 'tcp://127.0.0.1:5558', '--dp', '2'],
        /^kvscope: --replay-endpoint: with 2 data-parallel ranks the events use ports 5557 to 5558 and the replay 5558 to 5559, which overlap .*give the replay a port from 5559 on/m,
      ],
    ];
    for (const [extra, message] of cases) {
      const c = run([
        'collect',
        '--endpoint',
        'tcp://127.0.0.1:5557',
        '--metrics-port',
        '0',
        ...extra,
      ]);
      expect(await c.exited).not.toBe(0);
      expect(c.stderr()).toMatch(message);
    }
  });
});
