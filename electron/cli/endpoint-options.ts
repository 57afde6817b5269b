// The endpoint flags that `serve` and `desktop` share.

import type { Command } from 'commander';
import type { ProfileInput } from '../../shared/api-types';
import { profileInputSchema } from '../../shared/profile-rules';
import { portOption } from './option-values';

export interface EndpointFlags {
  endpoint: string[];
  topic: string;
  replayEndpoint?: string;
  /** The engines' own Prometheus URLs, in the order of the endpoints. */
  engineMetrics: string[];
  bind: boolean;
  demo: boolean;
  /** The demo's first port; 0 picks free ones. */
  demoPort?: number;
}

/**
 * Adds --endpoint (repeatable), --topic, --replay-endpoint, --engine-metrics, --bind, --demo and
 * --demo-port.
 */
export function addEndpointOptions(command: Command): Command {
  return command
    .option('--endpoint <url>', 'engine endpoint to subscribe to (repeatable)', collect, [])
    .option('--topic <topic>', 'topic prefix filter for --endpoint ("" = every topic)', '')
    .option(
      '--replay-endpoint <url>',
      "the engine's replay (ROUTER) endpoint, for the first --endpoint",
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
    .option(
      '--demo',
      'also run the built-in simulator (the default when no endpoint and no file to open is given)',
      false,
    )
    .option(
      '--demo-port <port>',
      "the demo's first port: its 2 ranks publish on it and the next, their replay on the 2 after (0 = free ones)",
      portOption('--demo-port'),
      0,
    );
}

/** The profiles the flags describe; throws a message naming the bad flag. */
export function endpointsFromFlags(flags: EndpointFlags): ProfileInput[] {
  const engineMetrics = flags.engineMetrics ?? [];
  if (engineMetrics.length > flags.endpoint.length) {
    throw new Error(
      `--engine-metrics: ${engineMetrics.length} given for ${flags.endpoint.length} --endpoint: give one per endpoint, in the same order`,
    );
  }
  return flags.endpoint.map((endpoint, i) => {
    const parsed = profileInputSchema.safeParse({
      name: endpoint,
      endpoint,
      mode: flags.bind ? 'bind' : 'connect',
      topic: flags.topic,
      replayEndpoint: i === 0 ? (flags.replayEndpoint ?? null) : null,
      dpRanks: 1,
      metricsUrl: engineMetrics[i] ?? null,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const flag = { replayEndpoint: 'replay-endpoint', metricsUrl: 'engine-metrics' }[
        String(issue?.path[0])
      ];
      throw new Error(`--${flag ?? 'endpoint'}: ${issue?.message}`);
    }
    return parsed.data;
  });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
