// The endpoint flags that `serve`, `desktop` and `collect` share.

import { Option, type Command } from 'commander';
import type { ProfileInput } from '../../shared/api-types';
import { profileInputSchema, rankPortProblem } from '../../shared/profile-rules';
import { portOption } from './option-values';

/** A per-endpoint flag's value and how many --endpoint came before it on the command line. */
export interface Placed {
  value: string;
  after: number;
}

/** A per-endpoint flag's values as given (a bare string: its place is not known). */
export type PerEndpoint = readonly (string | Placed)[];

export interface EndpointFlags {
  endpoint: string[];
  topic: string;
  /** The engines' replay endpoints. */
  replayEndpoint: PerEndpoint;
  /** The engines' data-parallel ranks (as given). */
  dp: PerEndpoint;
  /** The engines' own Prometheus URLs. */
  engineMetrics: PerEndpoint;
  bind: boolean;
  demo: boolean;
  /** The demo's first port; 0 picks free ones. */
  demoPort?: number;
}

/**
 * Adds --endpoint, --replay-endpoint, --dp and --engine-metrics (each repeatable; the others are
 * for the --endpoint right before them, as the Connections form has them per connection, or, one
 * for every --endpoint, in their order: see endpointsFromFlags), --topic, --bind, --demo and
 * --demo-port (hidden from --help where `demo` is false: collect refuses them, saying what to run
 * instead).
 */
export function addEndpointOptions(command: Command, { demo = true } = {}): Command {
  // Commander parses the flags in command-line order: a per-endpoint value notes how many
  // --endpoint it came after.
  let endpoints = 0;
  const endpoint = (value: string, previous: string[]): string[] => {
    endpoints = previous.length + 1;
    return [...previous, value];
  };
  const placed = (value: string, previous: Placed[]): Placed[] => [
    ...previous,
    { value, after: endpoints },
  ];
  const PER = 'right after the --endpoint it is for, or one per --endpoint in their order';
  return command
    .option('--endpoint <url>', 'engine endpoint to subscribe to (repeatable)', endpoint, [])
    .option('--topic <topic>', 'topic prefix filter for --endpoint ("" = every topic)', '')
    .option(
      '--replay-endpoint <url>',
      `the engine's replay (ROUTER) endpoint, ${PER} (repeatable)`,
      placed,
      [],
    )
    .option(
      '--dp <n>',
      `the engine's data-parallel ranks, ${PER}: rank r on its port + r, replay likewise (repeatable; default 1)`,
      placed,
      [],
    )
    .option(
      '--engine-metrics <url>',
      `the engine's own /metrics (vLLM: http://HOST:8000/metrics), ${PER} (repeatable)`,
      placed,
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
    const ports = rankPortProblem(parsed.data);
    if (ports !== null) throw new Error(`--replay-endpoint: ${ports}`);
    return parsed.data;
  });
}

/**
 * A per-endpoint flag's value for each endpoint (undefined: not given). Each value is for the
 * --endpoint right before it, when every one follows its own; otherwise one for every --endpoint
 * goes in their order (`--endpoint A --endpoint B --engine-metrics MA --engine-metrics MB`). Any
 * other arrangement could mean two things (taken in order, `--endpoint A --endpoint B
 * --replay-endpoint RB` gave B's replay to A): it is refused, saying how to write it.
 */
function perEndpoint(
  flag: string,
  values: PerEndpoint | undefined,
  endpoints: string[],
): (string | undefined)[] {
  const given = values ?? [];
  const out: (string | undefined)[] = endpoints.map(() => undefined);
  const after = given.map((g) => (typeof g === 'string' ? 0 : g.after));
  if (after.every((a) => a >= 1) && new Set(after).size === given.length) {
    given.forEach((g, i) => (out[(after[i] as number) - 1] = valueOf(g)));
    return out;
  }
  if (given.length === endpoints.length) return given.map(valueOf);
  if (given.length > endpoints.length) {
    throw new Error(
      `--${flag}: ${given.length} given for ${endpoints.length} --endpoint: give one per endpoint, in the same order`,
    );
  }
  throw new Error(
    `--${flag}: ${given.length} given for ${endpoints.length} --endpoint, not each right after its own: put each right after the --endpoint it is for (or give one per --endpoint, in their order)`,
  );
}

const valueOf = (g: string | Placed): string => (typeof g === 'string' ? g : g.value);

/**
 * A --dp value for the form's rule to check (profile-rules.ts): not a number ("two") reads as 0,
 * so its message is the form's ("a whole number from 1 to 256"), not zod's "received NaN".
 */
function rankCount(value: string): number {
  const n = Number(value);
  return Number.isNaN(n) ? 0 : n;
}
