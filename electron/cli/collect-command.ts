// `kvscope collect`: the headless collector for a cluster. Subscribes to the engines given and
// serves Prometheus metrics; prints problems (a source that fails, an engine metrics URL that does
// not answer) to stderr; Ctrl-C or SIGTERM closes everything and exits 0.

import path from 'node:path';
import { type Command, Option } from 'commander';
import type { Profile, SourceHealth } from '../../shared/api-types';
import { missingCase } from '../../shared/records';
import { Collector } from '../metrics/collector';
import { DEFAULT_METRICS_PORT } from '../metrics/metrics-http';
import { defaultDataDir, ensureWritableDataDir } from '../service/data-dir';
import { addEndpointOptions, endpointsFromFlags, type EndpointFlags } from './endpoint-options';
import { kvCacheGroupOption, parseToken, portOption } from './option-values';

interface CollectFlags extends EndpointFlags {
  metricsPort: number;
  metricsHost: string;
  record: boolean;
  analysis: boolean;
  group?: number;
  dataDir: string;
  token?: string;
}

/** Registers `kvscope collect`. */
export function registerCollect(program: Command): void {
  const command = program
    .command('collect')
    .description('Subscribe to engines headless and serve Prometheus metrics (no UI).')
    .addOption(
      new Option('--metrics-port <port>', 'port of /metrics (0 = any free)')
        .default(DEFAULT_METRICS_PORT)
        .argParser(portOption('--metrics-port')),
    )
    .option(
      '--metrics-host <host>',
      'address of /metrics; 0.0.0.0 lets Prometheus on other hosts scrape it',
      '127.0.0.1',
    )
    .option('--record', 'also record every redacted event (in --data-dir/recordings)', false)
    .option(
      '--no-analysis',
      'skip the cache analysis (re-stores, thrash, hits, lifetimes): less CPU and memory',
    )
    .addOption(
      kvCacheGroupOption(": the analysis' figures and the resident gauge are that group's"),
    )
    .option('--data-dir <dir>', 'where --record writes', defaultDataDir())
    .addOption(
      new Option(
        '--token <token>',
        'the bearer token a scrape needs when --metrics-host is not loopback (default: a new random one)',
      ).argParser(parseToken),
    );
  addEndpointOptions(command, { demo: false }).action((flags: CollectFlags) => runCollect(flags));
}

async function runCollect(flags: CollectFlags): Promise<void> {
  if (flags.endpoint.length === 0) {
    throw new Error(
      "give at least one --endpoint tcp://HOST:PORT (the engine's KV events publisher)",
    );
  }
  if (flags.demo) throw new Error('collect has no demo: run `kvscope sim` and --endpoint it');
  if (flags.group !== undefined && !flags.analysis)
    throw new Error(
      '--group picks the group the cache analysis takes: it cannot go with --no-analysis',
    );
  const profiles: Profile[] = endpointsFromFlags(flags).map((p, i) => ({
    ...p,
    id: `cli-${i + 1}`,
  }));
  if (flags.record) await ensureWritableDataDir(flags.dataDir);
  const collector = await Collector.start({
    profiles,
    recordDir: flags.record ? path.join(flags.dataDir, 'recordings') : null,
    metricsHost: flags.metricsHost,
    metricsPort: flags.metricsPort,
    analysis: flags.analysis,
    ...(flags.group === undefined ? {} : { group: flags.group }),
    ...(flags.token === undefined ? {} : { token: flags.token }),
  });
  const { url, token } = collector.server;
  // One write: whoever reads the URL line reads the token with it.
  process.stdout.write(
    `KV Scope collector: metrics on ${url}\n` +
      (token === null
        ? ''
        : `It listens beyond loopback (${flags.metricsHost}): a scrape needs "Authorization: Bearer ${token}" (Prometheus: authorization.credentials).\n`),
  );
  if (collector.recording) process.stderr.write(`recording to ${collector.recording.path}\n`);
  reportProblems(collector);
  const stop = () => {
    void collector.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What a source's state says on stderr once it has been connected: a hang-up, a stall, back. */
function stateLine(st: SourceHealth): string | null {
  switch (st.state) {
    case 'connected':
      return `${st.name}: connected`;
    case 'stalled':
    case 'connecting':
    case 'waiting':
      return `${st.name}: ${st.state}${st.hint === null ? '' : ` (${st.hint})`}`;
    case 'error':
    case 'closed':
      return null;
    default:
      return missingCase(st.state);
  }
}

/** Source states, restarts and errors, and engine metrics problems, each said once when it changes. */
function reportProblems(collector: Collector): void {
  // A hint keeps its text while its case lasts (source-hint.ts), so a text that changed is news.
  const said = new Map<string, string | null>();
  const say = (key: string, text: string | null) => {
    if (said.get(key) === text) return;
    said.set(key, text);
    if (text !== null) process.stderr.write(`${text}\n`);
  };
  const everConnected = new Set<string>();
  const check = () => {
    for (const s of collector.sources) {
      const st = s.status();
      say(`source:${st.id}`, st.lastError === null ? null : `${st.name}: ${st.lastError}`);
      // Before its first connection a source is only starting: its hint says what to check.
      if (st.state === 'connected') everConnected.add(st.id);
      if (everConnected.has(st.id)) say(`state:${st.id}`, stateLine(st));
      // (Closing at the end is no news: it would say the hint again beside "closed".)
      else if (st.hint !== null && st.state !== 'closed')
        say(`state:${st.id}`, `${st.name}: ${st.state} (${st.hint})`);
      const r = st.counters.resets;
      if (r > 0)
        say(
          `resets:${st.id}`,
          `${st.name}: the publisher restarted (seq back to 0${r > 1 ? `, ${r} times so far` : ''}): its cache starts empty`,
        );
    }
    for (const e of collector.hub.engineReadings()) say(`engine:${e.id}`, e.message);
  };
  for (const s of collector.sources) s.onStatus(check);
  setInterval(check, 1000).unref();
}
