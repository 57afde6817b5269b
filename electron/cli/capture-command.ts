// `kvscope capture`: subscribe to one engine and print its redacted events (the seed script's
// output, plus seq and dp_rank, with exact integer hashes). Gaps, resets and health go to stderr.
import type { Command } from 'commander';
import type { SourceCounters, SourceHealth } from '../../shared/api-types';
import { missingCase, type IngestRecord, type IngestSink } from '../../shared/records';
import { KvSource } from '../ingest/kv-source';
import { PROFILE_LIMITS, rankPortProblem } from '../../shared/profile-rules';
import { rankEndpoint, validateEndpoint, type SourceConfig } from '../ingest/source-config';
import {
  eventErrorJsonLine,
  eventTextLine,
  undecodedJsonLine,
  undecodedTextLine,
} from './capture-format';
import { BatchJsonWriter } from './capture-batch-json';
import { EventJsonWriter } from './event-json';
import { LineOutput } from './line-output';
import { wholeNumberOption } from './option-values';

interface CaptureOptions {
  endpoint: string;
  bind?: boolean;
  topic: string;
  replayEndpoint?: string;
  max?: number;
  json?: boolean;
  stallAfter: number;
  dp?: number;
}

/** The capture's closing counters as one JSON object (the keys scripts read). */
export function summaryJson(c: SourceCounters): string {
  return JSON.stringify({
    messages: c.messages,
    events: c.events,
    gaps: c.gaps,
    recovered: c.recovered,
    lost: c.lost,
    duplicates: c.duplicates,
    resets: c.resets,
    undecoded: c.undecoded,
    event_errors: c.eventErrors,
    replay_rejected: c.replayRejected,
  });
}

/** --stall-after: seconds, more than 0 (a stall after 0 s would be every moment), at most a day. */
function stallSeconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new Error(
      `--stall-after must be a number of seconds above 0 and at most 86400, got "${v}"`,
    );
  return n;
}

/** A second --endpoint is refused: capture reads one engine (its ranks through --dp). */
function oneEndpoint(value: string, previous: string | undefined): string {
  if (previous === undefined) return value;
  throw new Error(
    `--endpoint given twice (${previous}, ${value}): capture reads one engine; for a data-parallel engine give its rank 0 endpoint and --dp N (rank r on the port + r), or run one capture per engine`,
  );
}

/** Registers `kvscope capture`. */
export function registerCapture(program: Command): void {
  program
    .command('capture')
    .description('Print the KV cache events of one engine (one line per event; --json for JSONL)')
    .requiredOption(
      '--endpoint <url>',
      'ZeroMQ endpoint of the publisher, e.g. tcp://127.0.0.1:5557',
      oneEndpoint,
    )
    .option('--bind', 'bind the endpoint instead of connecting (for publishers that connect out)')
    .option('--topic <prefix>', 'topic prefix filter; the default "" takes every topic', '')
    .option('--replay-endpoint <url>', "the engine's replay (ROUTER) endpoint, to recover gaps")
    .option(
      '--max <n>',
      'stop after N events (undecoded lines not counted; 0 = run until Ctrl-C)',
      wholeNumberOption('--max', 0, Number.MAX_SAFE_INTEGER, ' (0: until Ctrl-C)'),
    )
    .option('--json', 'one JSON object per event per line (hashes as exact integers / hex strings)')
    .option(
      '--stall-after <sec>',
      'warn on stderr after this many silent seconds',
      stallSeconds,
      10,
    )
    .option(
      '--dp <n>',
      'data-parallel ranks: rank r on the --endpoint port + r (replay port likewise)',
      wholeNumberOption('--dp', 1, PROFILE_LIMITS.dpRanksMax),
    )
    .action((opts: CaptureOptions) => runCapture(opts));
}

/** The sum of several sources' counters (the ranks of a data-parallel capture). */
function sumCounters(all: SourceCounters[]): SourceCounters {
  const out = { ...(all[0] as SourceCounters) };
  for (const c of all.slice(1)) {
    for (const k of Object.keys(out) as (keyof SourceCounters)[]) out[k] += c[k];
  }
  return out;
}

/** One SourceConfig per rank: rank r on the base port + r, its replay port likewise. */
function captureConfigs(opts: CaptureOptions): SourceConfig[] {
  const ranks = opts.dp ?? 1;
  const out: SourceConfig[] = [];
  for (let r = 0; r < ranks; r++) {
    out.push({
      id: r === 0 ? 'capture' : `capture#${r}`,
      name: r === 0 ? 'capture' : `capture #${r}`,
      endpoint: rankEndpoint(opts.endpoint, r),
      mode: opts.bind === true ? 'bind' : 'connect',
      topic: opts.topic,
      replayEndpoint:
        opts.replayEndpoint === undefined ? null : rankEndpoint(opts.replayEndpoint, r),
      profileId: null,
      stallAfterSec: opts.stallAfter > 0 ? opts.stallAfter : 10,
    });
  }
  return out;
}

/**
 * The endpoints refused before anything connects, as collect and serve refuse them: a replay port
 * that is the events port, or whose ranks' ports meet the events ranks' (rank r adds r to both).
 */
export function checkCaptureEndpoints(
  opts: Pick<CaptureOptions, 'endpoint' | 'replayEndpoint' | 'dp'>,
): void {
  validateEndpoint(opts.endpoint, '--endpoint');
  if (opts.replayEndpoint === undefined) return;
  validateEndpoint(opts.replayEndpoint, '--replay-endpoint');
  const ports = rankPortProblem({
    endpoint: opts.endpoint,
    replayEndpoint: opts.replayEndpoint,
    dpRanks: opts.dp ?? 1,
  });
  if (ports !== null) throw new Error(`--replay-endpoint: ${ports}`);
}

async function runCapture(opts: CaptureOptions): Promise<void> {
  checkCaptureEndpoints(opts);
  const ranks = opts.dp ?? 1;
  const cfgs = captureConfigs(opts);
  const max = opts.max ?? 0;
  const json = opts.json === true;
  const err = (line: string): void => void process.stderr.write(`# ${line}\n`);
  /** Lines printed (their number in the text form), and the events among them (what --max counts). */
  let seen = 0;
  let events = 0;
  let stopping = false;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const full = (): boolean => max > 0 && events >= max;
  const out = new LineOutput(process.stdout);
  const jsonLines = new EventJsonWriter(out);
  const fastJson = new BatchJsonWriter(out, jsonLines);

  const write = (cfg: SourceConfig, rank: number, r: IngestRecord): void => {
    // With --dp, a line of a batch that names no rank carries the rank of its port.
    const from = ranks > 1 ? `rank ${rank}: ` : '';
    switch (r.k) {
      case 'batch': {
        for (const e of r.events) {
          if (full()) break;
          seen++;
          events++;
          const line = ranks > 1 && e.dp_rank === null ? { ...e, dp_rank: rank } : e;
          if (json) jsonLines.write(line);
          else out.text(`${eventTextLine(seen, line)}\n`);
        }
        out.endLine();
        if (full()) maxReached();
        return;
      }
      case 'undecoded':
        if (full()) return;
        seen++;
        out.text(
          `${json ? undecodedJsonLine(r.rec, ranks > 1 ? rank : null) : undecodedTextLine(seen, r.rec)}\n`,
        );
        out.endLine();
        if (full()) maxReached();
        return;
      case 'event-error':
        err(`${from}event ${r.rec.idx} of seq ${r.rec.seq} could not be decoded: ${r.rec.error}`);
        // In the file too (not counted by --max, as undecoded lines are not): its seq arrived.
        if (json && !full()) {
          out.text(`${eventErrorJsonLine(r.rec, ranks > 1 ? rank : null)}\n`);
          out.endLine();
        }
        return;
      case 'gap': {
        const g = r.rec;
        const what =
          cfg.replayEndpoint === null ? 'no replay endpoint' : `replay recovered ${g.recovered}`;
        err(
          `${from}gap: seq ${g.from}..${g.to} (${g.to - g.from + 1} missing): ${what}, lost ${g.lost}`,
        );
        return;
      }
      case 'reset':
        err(
          `${from}publisher restarted: seq back to 0 after ${r.rec.previousSeq} (a reset, not a gap)`,
        );
        return;
      default:
        missingCase(r);
    }
  };

  /** --max is reached: the sources handle nothing more (their counters stop with the output). */
  const maxReached = (): void => {
    for (const s of sources) s.stopHandling();
    finish();
  };
  const sources = cfgs.map((cfg, rank) => {
    const sink: IngestSink = {
      record(r) {
        if (!stopping) write(cfg, rank, r);
      },
    };
    // Without --max, --json lines are written straight from the batch bytes where they can be.
    const takeBatch = (seq: number, payload: Uint8Array): number => {
      if (stopping) return -1;
      const n = fastJson.write(payload, seq, ranks > 1 ? rank : null);
      if (n < 0) return -1;
      seen += n;
      events += n;
      out.endLine();
      return n;
    };
    // A stdout that falls behind holds the receiving (bounded memory; ZeroMQ queues or drops).
    const source = new KvSource(cfg, sink, {
      beforeReceive: () => out.blocked(),
      ...(json && max === 0 ? { takeBatch } : {}),
    });
    const from = ranks > 1 ? `rank ${rank} (${cfg.endpoint}): ` : '';
    let lastState = '';
    let lastHint: string | null = null;
    let lastError: string | null = null;
    source.onStatus((s: SourceHealth) => {
      if (s.state !== lastState) {
        lastState = s.state;
        if (s.state !== 'closed')
          err(
            `${from}${s.state}${s.lastError !== null && s.state === 'error' ? `: ${s.lastError}` : ''}`,
          );
      } else if (s.lastError !== null && s.lastError !== lastError && s.state !== 'error') {
        // A warning while it runs (several publishers on a bound endpoint, a silent replay).
        err(`${from}${s.lastError}`);
      }
      lastError = s.lastError;
      if (s.hint !== null && s.hint !== lastHint) err(`${from}${s.hint}`);
      lastHint = s.hint;
    });
    return source;
  });
  const onSignal = (): void => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    // A closed pipe (| head) ends the capture quietly.
    if (e.code === 'EPIPE') finish();
  });
  for (const cfg of cfgs) {
    err(
      `${cfg.mode === 'bind' ? 'bound' : 'subscribed'} to ${cfg.endpoint} topic=${JSON.stringify(cfg.topic)}` +
        (cfg.replayEndpoint === null ? '' : ` replay=${cfg.replayEndpoint}`),
    );
  }
  await Promise.all(sources.map((s) => s.start()));
  await finished;
  // Closing delivers what a pending gap still holds (in seq order), unless --max is reached.
  await Promise.all(sources.map((s) => s.close()));
  stopping = true;
  const c = sumCounters(sources.map((s) => s.status().counters));
  const n = (k: number, one: string): string => `${k} ${k === 1 ? one : `${one}s`}`;
  const undecodedLines = seen > events ? ` (and ${n(seen - events, 'undecoded line')})` : '';
  err(
    `done: ${n(events, 'event')} printed${undecodedLines}; ${n(c.messages, 'message')}, ${n(c.gaps, 'gap')} (${c.recovered} recovered, ${c.lost} lost), ` +
      `${n(c.resets, 'reset')}, ${n(c.duplicates, 'duplicate')}, ${c.undecoded} undecoded, ${n(c.eventErrors, 'event error')}`,
  );
  // The last stderr line, for scripts: the sources' own counters (summed over ranks).
  err(`summary ${summaryJson(c)}`);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await out.end();
  process.exit(0);
}
