// The endpoint flags that `serve`, `desktop` and `collect` share.

import { Option, type Command } from 'commander';
import type { ProfileInput } from '../../shared/api-types';
import { profileInputSchema } from '../../shared/profile-rules';
import { portOption } from './option-values';

export interface EndpointFlags {
  endpoint: string[];
  topic: string;
  /** The engines' replay endpoints, in the order of the endpoints. */
  replayEndpoint: string[];
  /** The engines' data-parallel ranks (as given), in the order of the endpoints. */
  dp: string[];
  /** The engines' own Prometheus URLs, in the order of the endpoints. */
  engineMetrics: string[];
  bind: boolean;
  demo: boolean;
  /** The demo's first port; 0 picks free ones. */
  demoPort?: number;
}

/**
 * Adds --endpoint, --replay-endpoint, --dp and --engine-metrics (each repeatable, the others taken
 * in the order of the endpoints, as the Connections form has them per connection), --topic,
 * --bind, --demo and --demo-port (hidden from --help where `demo` is false: collect refuses
 * them, saying what to run instead).
 */
export function addEndpointOptions(command: Command, { demo = true } = {}): Command {
  return command
    .option('--endpoint <url>', 'engine endpoint to subscribe to (repeatable)', collect, [])
    .option('--topic <topic>', 'topic prefix filter for --endpoint ("" = every topic)', '')
    .option(
      '--replay-endpoint <url>',
      "the engine's replay (ROUTER) endpoint, for the --endpoint in the same place (repeatable)",
      collect,
      [],
    )
    .option(
      '--dp <n>',
      "the engine's data-parallel ranks, for the --endpoint in the same place: rank r on its port + r, replay likewise (repeatable; default 1)",
      collect,
      [],
    )
    .option(
      '--engine-metrics <url>',
      "the engine's own /metrics (vLLM: http://HOST:8000/metrics) for the --endpoint in the same place (repeatable)",
      collect,
      [],
    )
    .option(
      '--bind',
      'bind the --endpoint instead of connecting (publishers that connect out)',
      false,
    )
    .addOption(
      new Option(
        '--demo',
        'also run the built-in simulator (the default when no endpoint and no file to open is given)',
      )
        .default(false)
        .hideHelp(!demo),
    )
    .addOption(
      new Option(
        '--demo-port <port>',
        "the demo's first port: its 2 ranks publish on it and the next, their replay on the 2 after (0 = free ones)",
      )
        .argParser(portOption('--demo-port'))
        .default(0)
        .hideHelp(!demo),
    );
}

/** The profiles the flags describe; throws a message naming the bad flag. */
export function endpointsFromFlags(flags: EndpointFlags): ProfileInput[] {
  const engineMetrics = perEndpoint('engine-metrics', flags.engineMetrics, flags.endpoint);
  const replay = perEndpoint('replay-endpoint', flags.replayEndpoint, flags.endpoint);
  const dp = perEndpoint('dp', flags.dp, flags.endpoint);
  return flags.endpoint.map((endpoint, i) => {
    const ranks = dp[i];
    const parsed = profileInputSchema.safeParse({
      name: endpoint,
      endpoint,
      mode: flags.bind ? 'bind' : 'connect',
      topic: flags.topic,
      replayEndpoint: replay[i] ?? null,
      dpRanks: ranks === undefined ? 1 : rankCount(ranks),
      metricsUrl: engineMetrics[i] ?? null,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const flag = {
        replayEndpoint: 'replay-endpoint',
        metricsUrl: 'engine-metrics',
        dpRanks: 'dp',
      }[String(issue?.path[0])];
      throw new Error(`--${flag ?? 'endpoint'}: ${issue?.message}`);
    }
    return parsed.data;
  });
}

/** A flag given per --endpoint, in the same order: more of them than endpoints is an error. */
function perEndpoint(flag: string, values: string[] | undefined, endpoints: string[]): string[] {
  const given = values ?? [];
  if (given.length > endpoints.length) {
    throw new Error(
      `--${flag}: ${given.length} given for ${endpoints.length} --endpoint: give one per endpoint, in the same order`,
    );
  }
  return given;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * A --dp value for the form's rule to check (profile-rules.ts): not a number ("two") reads as 0,
 * so its message is the form's ("a whole number from 1 to 256"), not zod's "received NaN".
 */
function rankCount(value: string): number {
  const n = Number(value);
  return Number.isNaN(n) ? 0 : n;
}
