// `kvscope capture`: subscribe to one engine and print its redacted events (the seed script's
// output, plus seq and dp_rank, with exact integer hashes). Gaps, resets and health go to stderr.
import type { Command } from 'commander';
import type { SourceCounters, SourceHealth } from '../../shared/api-types';
import { missingCase, type IngestRecord, type IngestSink } from '../../shared/records';
import { KvSource } from '../ingest/kv-source';
import { validateEndpoint, type SourceConfig } from '../ingest/source-config';
import { eventTextLine, undecodedJsonLine, undecodedTextLine } from './capture-format';
import { EventJsonWriter } from './event-json';
import { LineOutput } from './line-output';

interface CaptureOptions {
  endpoint: string;
  bind?: boolean;
  topic: string;
  replayEndpoint?: string;
  max?: number;
  json?: boolean;
  stallAfter: number;
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
    replay_rejected: c.replayRejected,
  });
}

const positiveInt =
  (what: string) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`${what} must be a whole number >= 0, got "${v}"`);
    return n;
  };

/** Registers `kvscope capture`. */
export function registerCapture(program: Command): void {
  program
    .command('capture')
    .description('Print the KV cache events of one engine (one line per event; --json for JSONL)')
    .requiredOption(
      '--endpoint <url>',
      'ZeroMQ endpoint of the publisher, e.g. tcp://127.0.0.1:5557',
    )
    .option('--bind', 'bind the endpoint instead of connecting (for publishers that connect out)')
    .option('--topic <prefix>', 'topic prefix filter; the default "" takes every topic', '')
    .option('--replay-endpoint <url>', "the engine's replay (ROUTER) endpoint, to recover gaps")
    .option('--max <n>', 'stop after N events (0 = run until Ctrl-C)', positiveInt('--max'))
    .option('--json', 'one JSON object per event per line (hashes as exact integers / hex strings)')
    .option('--stall-after <sec>', 'warn on stderr after this many silent seconds', Number, 10)
    .action((opts: CaptureOptions) => runCapture(opts));
}

async function runCapture(opts: CaptureOptions): Promise<void> {
  validateEndpoint(opts.endpoint, '--endpoint');
  if (opts.replayEndpoint !== undefined) validateEndpoint(opts.replayEndpoint, '--replay-endpoint');
  const cfg: SourceConfig = {
    id: 'capture',
    name: 'capture',
    endpoint: opts.endpoint,
    mode: opts.bind === true ? 'bind' : 'connect',
    topic: opts.topic,
    replayEndpoint: opts.replayEndpoint ?? null,
    profileId: null,
    stallAfterSec: opts.stallAfter > 0 ? opts.stallAfter : 10,
  };
  const max = opts.max ?? 0;
  const json = opts.json === true;
  const err = (line: string): void => void process.stderr.write(`# ${line}\n`);
  let seen = 0;
  let stopping = false;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const full = (): boolean => max > 0 && seen >= max;
  const out = new LineOutput(process.stdout);
  const jsonLines = new EventJsonWriter(out);

  const write = (r: IngestRecord): void => {
    switch (r.k) {
      case 'batch': {
        for (const e of r.events) {
          if (full()) break;
          seen++;
          if (json) jsonLines.write(e);
          else out.text(`${eventTextLine(seen, e)}\n`);
        }
        out.endLine();
        if (full()) finish();
        return;
      }
      case 'undecoded':
        if (full()) return;
        seen++;
        out.text(`${json ? undecodedJsonLine(r.rec) : undecodedTextLine(seen, r.rec)}\n`);
        out.endLine();
        if (full()) finish();
        return;
      case 'event-error':
        err(`event ${r.rec.idx} of seq ${r.rec.seq} could not be decoded: ${r.rec.error}`);
        return;
      case 'gap': {
        const g = r.rec;
        const what =
          cfg.replayEndpoint === null ? 'no replay endpoint' : `replay recovered ${g.recovered}`;
        err(`gap: seq ${g.from}..${g.to} (${g.to - g.from + 1} missing): ${what}, lost ${g.lost}`);
        return;
      }
      case 'reset':
        err(`publisher restarted: seq back to 0 after ${r.rec.previousSeq} (a reset, not a gap)`);
        return;
      default:
        missingCase(r);
    }
  };
  const sink: IngestSink = {
    record(r) {
      if (!stopping) write(r);
    },
  };

  // A stdout that falls behind holds the receiving (bounded memory; ZeroMQ queues or drops).
  const source = new KvSource(cfg, sink, { beforeReceive: () => out.blocked() });
  let lastState = '';
  let lastHint: string | null = null;
  source.onStatus((s: SourceHealth) => {
    if (s.state !== lastState) {
      lastState = s.state;
      if (s.state !== 'closed')
        err(`${s.state}${s.lastError !== null && s.state === 'error' ? `: ${s.lastError}` : ''}`);
    }
    if (s.hint !== null && s.hint !== lastHint) err(s.hint);
    lastHint = s.hint;
  });
  const onSignal = (): void => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    // A closed pipe (| head) ends the capture quietly.
    if (e.code === 'EPIPE') finish();
  });
  err(
    `${cfg.mode === 'bind' ? 'bound' : 'subscribed'} to ${cfg.endpoint} topic=${JSON.stringify(cfg.topic)}` +
      (cfg.replayEndpoint === null ? '' : ` replay=${cfg.replayEndpoint}`),
  );
  await source.start();
  await finished;
  // Closing delivers what a pending gap still holds (in seq order), unless --max is reached.
  await source.close();
  stopping = true;
  const c = source.status().counters;
  err(
    `done: ${seen} events printed; ${c.messages} messages, ${c.gaps} gaps (${c.recovered} recovered, ${c.lost} lost), ` +
      `${c.resets} resets, ${c.duplicates} duplicates, ${c.undecoded} undecoded`,
  );
  // The last stderr line, for scripts: the source's own counters, the ones the app shows.
  err(`summary ${summaryJson(c)}`);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await out.end();
  process.exit(0);
}
