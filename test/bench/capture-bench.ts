// `kvscope capture --json` CPU per event against a bare zeromq.js receive loop taking the same
// stream (budget: at most 1.6x), and the seed script (Python + msgspec) where python3 has both.
// One publisher child sends vLLM's fixture payloads (30,000 messages) to one consumer child at a
// time, once its subscription has arrived, paced (10,000 messages/s) and unpaced. Each consumer
// first takes a warm-up stream (10,000 messages, unpaced, not measured): what is measured is the
// steady state, not how long a JIT takes to compile a consumer's code (most of a cold capture's
// first thousands of messages). Each consumer's CPU is its own, read from /proc before the
// measured stream and after it printed its last line.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BatchJsonWriter } from '../../electron/cli/capture-batch-json';
import { EventJsonWriter } from '../../electron/cli/event-json';
import { LineOutput } from '../../electron/cli/line-output';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { SENTINEL_TS, sentinelPayload } from '../support/capture-variants';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { median, pairedRatios, type BenchResult } from './bench-result';
import { cpuMs, cpuSince, usPer, type Cpu } from './thread-cpu';

const MESSAGES = 30_000;
const WARMUP_MESSAGES = Number(process.env.KVSCOPE_BENCH_WARMUP ?? 10_000);
const PACED_RATE = 10_000; // messages per second
const ROUNDS = Number(process.env.KVSCOPE_BENCH_ROUNDS ?? 5);
// Extra node flags for the capture child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
const CAPTURE_NODE_ARGS = (process.env.KVSCOPE_BENCH_CAPTURE_NODE_ARGS ?? '')
  .split(' ')
  .filter(Boolean);
// The same for the bare loop, to compare its profile with capture's function by function.
const BARE_NODE_ARGS = (process.env.KVSCOPE_BENCH_BARE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const BUDGET = 1.6;
// Another build's CLI to measure beside this one in the same run (before / after a change).
const OTHER_CLI = process.env.KVSCOPE_BENCH_OTHER_CLI;

// Plain JS for the children: no TypeScript loader needed there. The publisher says "sub" when a
// subscriber joined and "sent" when a stream is out; "go RATE COUNT" (rate 0: unpaced) starts one.
const PUBLISHER = `
const { XPublisher } = require('zeromq');
const fs = require('fs');
const readline = require('readline');
const payloads = [];
for (const f of process.env.FIXTURES.split(',')) {
  const b = fs.readFileSync(f);
  let o = 0;
  while (o < b.length) {
    const n = b.readUInt32BE(o); o += 4;
    const frames = [];
    for (let i = 0; i < n; i++) { const len = b.readUInt32BE(o); o += 4; frames.push(b.subarray(o, o + len)); o += len; }
    payloads.push(frames[2]);
  }
}
const sentinel = Buffer.from(process.env.SENTINEL, 'hex');
const topic = Buffer.from('kv-events');
let seq = 0n;
const seqFrame = () => { const s = Buffer.alloc(8); s.writeBigUInt64BE(seq++); return s; };
async function stream(pub, rate, total) {
  const t0 = performance.now();
  let sent = 0;
  while (sent < total) {
    const owed = rate > 0 ? Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate)) : total;
    for (; sent < owed; sent++) await pub.send([topic, seqFrame(), payloads[sent % payloads.length]]);
    if (rate > 0) await new Promise((r) => setTimeout(r, 2));
  }
  await pub.send([topic, seqFrame(), sentinel]);
  process.stdout.write('sent\\n');
}
(async () => {
  const pub = new XPublisher({ linger: 0, sendHighWaterMark: Number(process.env.MESSAGES) * 2 });
  pub.verbosity = 'allSubs';
  await pub.bind('tcp://127.0.0.1:*');
  process.stdout.write(pub.lastEndpoint + '\\n');
  readline.createInterface({ input: process.stdin }).on('line', (l) => {
    const [cmd, rate, total] = l.split(' ');
    if (cmd === 'go') void stream(pub, Number(rate), Number(total));
  });
  for (;;) {
    const [frame] = await pub.receive();
    if (frame[0] === 1) process.stdout.write('sub\\n');
  }
})();
`;

// The baseline: receive every message, look at nothing but the end marker.
const BARE = `
const { Subscriber } = require('zeromq');
const sentinel = Buffer.from(process.env.SENTINEL, 'hex');
// Exits on the bench's SIGINT as capture does (a --cpu-prof profile is written at exit).
process.once('SIGINT', () => process.exit(0));
(async () => {
  const sock = new Subscriber({ linger: 0 });
  sock.subscribe();
  sock.connect(process.argv[1]);
  let n = 0;
  for (;;) {
    const frames = await sock.receive();
    n++;
    if (frames[2].equals(sentinel)) process.stdout.write('messages ' + n + '\\n' + ${JSON.stringify(String(SENTINEL_TS))} + '\\n');
  }
})();
`;

interface Consumer {
  name: string;
  command: (endpoint: string) => [string, string[]];
}

interface Sample {
  cpu: Cpu;
  lines: number;
  stderr: string;
}

/** Lines from a child's stdout, without keeping more than the tail of a partial line. */
function onLines(child: ChildProcess, each: (line: string) => void): void {
  let rest = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) each(p);
  });
}

class Publisher {
  private waiters: ((line: string) => void)[] = [];
  private constructor(
    private readonly child: ChildProcess,
    readonly endpoint: string,
  ) {
    onLines(child, (l) => this.waiters.shift()?.(l));
  }

  static start(): Promise<Publisher> {
    const child = spawn(process.execPath, ['-e', PUBLISHER], {
      cwd: ROOT,
      env: {
        ...process.env,
        FIXTURES: ALL_FIXTURES.map((f) => f.frames).join(','),
        MESSAGES: String(MESSAGES),
        SENTINEL: Buffer.from(sentinelPayload()).toString('hex'),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.stdout?.once('data', (d: Buffer) => {
        const pub = new Publisher(child, d.toString().trim());
        resolve(pub);
      });
    });
  }

  /** The next line the publisher prints. */
  next(): Promise<string> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  go(rate: number, count: number): void {
    this.child.stdin?.write(`go ${rate} ${count}\n`);
  }

  kill(): void {
    this.child.kill();
  }
}

/**
 * Reads a consumer's stdout as raw chunks: counts lines and end markers (one per stream). It stays
 * cheap so that the reader is never what holds a consumer back.
 */
function drain(
  child: ChildProcess,
  marker: Buffer,
): { reached: (markers: number) => Promise<void>; lines: () => number } {
  let lines = 0;
  let markers = 0;
  let tail: Buffer = Buffer.alloc(0);
  const waiting: { markers: number; resolve: () => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    // A marker may straddle two chunks: the tail kept is shorter than a marker, so each marker
    // found ends in this chunk and is counted once.
    const seen = Buffer.concat([tail, chunk]);
    for (let i = seen.indexOf(marker); i >= 0; i = seen.indexOf(marker, i + 1)) markers++;
    tail = seen.subarray(Math.max(0, seen.length - marker.length + 1));
    for (const w of waiting.filter((x) => x.markers <= markers)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  return {
    reached: (n) =>
      n <= markers
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ markers: n, resolve })),
    lines: () => lines,
  };
}

/** One consumer on one stream: CPU from its subscription to its printing the end marker. */
async function measure(pub: Publisher, c: Consumer, rate: number): Promise<Sample> {
  const [cmd, args] = c.command(pub.endpoint);
  const subscribed = pub.next();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, SENTINEL: Buffer.from(sentinelPayload()).toString('hex') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const out = drain(child, Buffer.from(String(SENTINEL_TS)));
  if ((await subscribed) !== 'sub') throw new Error('the bench publisher did not see a subscriber');
  const pid = child.pid as number;
  if (WARMUP_MESSAGES > 0) {
    const warmed = pub.next();
    pub.go(0, WARMUP_MESSAGES);
    await out.reached(1);
    await warmed;
  }
  const before = cpuMs(pid);
  const sent = pub.next();
  pub.go(rate, MESSAGES);
  await out.reached(WARMUP_MESSAGES > 0 ? 2 : 1);
  const cpu = cpuSince(before, cpuMs(pid));
  await sent;
  child.kill('SIGINT');
  await exited;
  return { cpu, lines: out.lines(), stderr };
}

/** The seed script, where shared/seed is beside the repository (or KVSCOPE_SEED names it). */
function seedScript(): string | null {
  const named = process.env.KVSCOPE_SEED;
  if (named !== undefined) return existsSync(named) ? named : null;
  for (let dir = ROOT; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'shared', 'seed', 'kv_events_subscriber.py');
    if (existsSync(p)) return p;
    if (path.dirname(dir) === dir) return null;
  }
}

const pythonHasSeedDeps = (): boolean =>
  spawnSync('python3', ['-c', 'import zmq, msgspec'], { stdio: 'ignore' }).status === 0;

/** The events a stream of `count` messages carries, and the lines capture prints for it. */
function streamEvents(count: number): { events: number; captureLines: number } {
  const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
  let events = 0;
  let lines = 0;
  for (let i = 0; i < count; i++) {
    const d = decodeBatch(payloads[i % payloads.length] as Uint8Array);
    events += d.ok ? d.events.length : 0;
    lines += d.ok ? d.events.length : 1;
  }
  return { events, captureLines: count === 0 ? 0 : lines + 1 };
}

/**
 * The fast path alone (capture-batch-json.ts), in this process: CPU µs per message for the
 * stream's payloads written as JSON lines into a LineOutput that discards them, after a warm-up;
 * the median of `rounds` passes of `count` messages. What capture adds to the bare loop, less
 * its socket, sequencing and stdout.
 */
function fastPathUs(count: number, rounds: number): number[] {
  const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
  const discard = {
    writableLength: 0,
    write: (): boolean => true,
    once(): unknown {
      return discard;
    },
  };
  const out = new LineOutput(discard);
  const writer = new BatchJsonWriter(out, new EventJsonWriter(out));
  const pass = (n: number): void => {
    for (let i = 0; i < n; i++) {
      if (writer.write(payloads[i % payloads.length] as Uint8Array, i, null) < 0)
        throw new Error('a fixture payload left the fast path');
      out.endLine();
    }
  };
  pass(WARMUP_MESSAGES);
  const us: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.cpuUsage();
    pass(count);
    const t = process.cpuUsage(t0);
    us.push((t.user + t.system) / count);
  }
  return us;
}

/** Runs the capture benchmark: CPU per event of capture --json (and the seed) against bare. */
export async function runCaptureBench(): Promise<BenchResult> {
  ensureBuilt();
  const { events, captureLines: measuredLines } = streamEvents(MESSAGES);
  // Every line of the warm-up stream and of the measured one (each ends with the sentinel's).
  const captureLines = measuredLines + streamEvents(WARMUP_MESSAGES).captureLines;
  const seed = seedScript();
  const consumers: Consumer[] = [
    { name: 'bare', command: (e) => [process.execPath, [...BARE_NODE_ARGS, '-e', BARE, e]] },
    {
      name: 'capture',
      command: (e) => [
        process.execPath,
        [...CAPTURE_NODE_ARGS, CLI, 'capture', '--endpoint', e, '--json'],
      ],
    },
  ];
  if (OTHER_CLI !== undefined)
    consumers.push({
      name: 'other build',
      command: (e) => [process.execPath, [OTHER_CLI, 'capture', '--endpoint', e, '--json']],
    });
  const seedNote =
    seed === null
      ? 'not run (no shared/seed/kv_events_subscriber.py beside the repository)'
      : pythonHasSeedDeps()
        ? null
        : 'not run (python3 lacks pyzmq or msgspec)';
  if (seed !== null && seedNote === null)
    consumers.push({
      name: 'seed',
      command: (e) => ['python3', [seed, '--endpoint', e, '--topic', '', '--json']],
    });
  const pub = await Publisher.start();
  const modes = [
    { name: `paced ${PACED_RATE}/s`, rate: PACED_RATE },
    { name: 'unpaced', rate: 0 },
  ];
  const us: Record<string, number[]> = {};
  // The same per thread kind (key `mode/consumer/kind`), for where capture's CPU goes.
  const threadUs: Record<string, number[]> = {};
  let lost = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of modes) {
        for (const c of consumers) {
          const s = await measure(pub, c, m.rate);
          (us[`${m.name}/${c.name}`] ??= []).push((s.cpu.total * 1000) / events);
          for (const [kind, perEvent] of Object.entries(usPer(s.cpu.byThread, events)))
            (threadUs[`${m.name}/${c.name}/${kind}`] ??= []).push(perEvent);
          if (c.name === 'capture' && s.lines !== captureLines) lost++;
        }
      }
    }
  } finally {
    pub.kill();
  }
  const rows: [string, string][] = [
    [
      'stream',
      `${MESSAGES} messages, ${events} events, after a warm-up stream of ${WARMUP_MESSAGES} messages`,
    ],
  ];
  let worst = 0;
  for (const m of modes) {
    const bare = median(us[`${m.name}/bare`] ?? []);
    for (const c of consumers) {
      const xs = us[`${m.name}/${c.name}`] ?? [];
      const v = median(xs);
      const budget = c.name === 'capture' ? ` (budget ${BUDGET.toFixed(2)}x)` : '';
      const ratio = c.name === 'bare' ? '' : `, ${(v / bare).toFixed(2)}x bare${budget}`;
      rows.push([
        `${m.name}: ${c.name}, CPU per event`,
        `${v.toFixed(2)} µs${ratio} (rounds ${xs.map((x) => x.toFixed(2)).join(' / ')})`,
      ]);
    }
    worst = Math.max(worst, median(us[`${m.name}/capture`] ?? []) / bare);
    rows.push([
      `${m.name}: capture / bare, round by round`,
      pairedRatios(us[`${m.name}/capture`] ?? [], us[`${m.name}/bare`] ?? []),
    ]);
    const split = (c: string): string =>
      (['main', 'zeromq', 'other'] as const)
        .map((k) => `${median(threadUs[`${m.name}/${c}/${k}`] ?? []).toFixed(2)}`)
        .join(' / ');
    if (threadUs[`${m.name}/bare/main`] !== undefined)
      rows.push([
        `${m.name}: main / ZeroMQ / other threads`,
        `capture ${split('capture')} µs, bare ${split('bare')} µs per event (medians)`,
      ]);
  }
  const fast = fastPathUs(MESSAGES, ROUNDS);
  const perEvent = (median(fast) * MESSAGES) / events;
  rows.push([
    'fast path alone (in process), CPU per message',
    `${median(fast).toFixed(2)} µs (${perEvent.toFixed(2)} µs per event; rounds ${fast.map((x) => x.toFixed(2)).join(' / ')})`,
  ]);
  if (seedNote !== null) rows.push(['seed script', seedNote]);
  if (lost > 0) rows.push(['capture runs with lines missing', `${lost} (numbers not comparable)`]);
  return {
    title: `kvscope capture --json CPU per event vs a bare zeromq.js receive loop (${ROUNDS} rounds, median, warmed up; worst of paced / unpaced)`,
    rows,
    ratio: worst,
    budget: BUDGET,
  };
}
