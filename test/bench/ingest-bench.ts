// The whole live path (socket, decode, sequencer, recording, model, analysis) against a bare
// zeromq.js receive loop on the same stream (DESIGN's budget: at most 2x its CPU), with KvSource
// alone and KvSource + the recording alone for the breakdown. The publisher runs in a child process so its CPU is not counted; it
// replays the vLLM fixture payloads with a continuous seq and a ts from the clock at a fixed pace. Each receiver is
// measured with process.resourceUsage() over the same number of messages, each round of each in a
// process of its own (child-rounds.ts), the receivers interleaved. Then the whole path takes rising rates until it loses messages or falls
// behind: the highest rate it kept up with, lossless, is printed (DESIGN: 50,000 events/s). Each
// receiver's CPU by thread (its JavaScript, ZeroMQ's I/O thread, the rest: V8's helpers and the
// recording's gzip on libuv's pool), kernel CPU and minor page faults per message are printed
// too: first-touched memory is dear on this machine (about 4 ms of CPU per MB), but the whole
// path's kernel CPU per message is about the bare loop's: the gap is user time. The path past the
// socket is also timed in process, fed back to back and paced as the socket feeds it (pacedRound):
// the same work costs more a few messages per wake-up, so an in-process A/B overstates what a
// change does here.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Subscriber } from 'zeromq';
import { LiveSession } from '../../electron/service/live-session';
import { KvSource } from '../../electron/ingest/kv-source';
import { DEFAULT_RING_SIZE } from '../../electron/model/event-ring';
import { EventLines } from '../../electron/session/event-line';
import { Recording } from '../../electron/session/recording';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { EventRecord } from '../../shared/events';
import type { IngestSink } from '../../shared/records';
import { ROOT } from '../support/built-app';
import { readPayloads } from '../support/fixture-frames';
import { median, pairedRatios, type BenchResult } from './bench-result';
import { childRounds } from './child-rounds';
import { cpuMs, cpuSince, threadSplit, usPer, type Cpu } from './thread-cpu';

const RATE = 20_000; // messages per second
/** Messages taken before measuring: a fresh process's JIT settles within them. */
const WARM = 10_000;
const MEASURE = 40_000;
const ROUNDS = 5;
/** Event rates the whole path is asked to keep up with, in order, until one fails. */
const LOSSLESS_EVENT_RATES = [25_000, 50_000, 75_000, 100_000, 150_000, 200_000];
/** Seconds each rate is held (after a warm-up of half a second's messages). */
const LOSSLESS_HOLD_S = 3;
/** Messages the path may be behind the publisher at the end of a hold, in seconds of the rate. */
const BEHIND_S = 0.25;
/** A hold counts only when the publisher (a busy machine starves it too) sent this share of the rate. */
const OFFERED = 0.9;

// Plain JS for the child: no TypeScript loader needed there.
const PUBLISHER = `
const { Publisher } = require('zeromq');
const fs = require('fs');
const payloads = [];
for (const f of ['hybrid-int', 'legacy-int']) {
  const b = fs.readFileSync('test/fixtures/vllm/' + f + '.frames');
  let o = 0;
  while (o < b.length) {
    const n = b.readUInt32BE(o); o += 4;
    const frames = [];
    for (let i = 0; i < n; i++) { const len = b.readUInt32BE(o); o += 4; frames.push(b.subarray(o, o + len)); o += len; }
    if (frames[2][0] !== 0x93 || frames[2][1] !== 0xcb) throw new Error(f + ': a batch not [float64 ts, ...]');
    payloads.push(frames[2]);
  }
}
(async () => {
  const pub = new Publisher({ linger: 0, sendHighWaterMark: 200000 });
  await pub.bind('tcp://127.0.0.1:*');
  process.stdout.write(pub.lastEndpoint + '\\n');
  const topic = Buffer.from('kv-events');
  let seq = 0n;
  const rate = Number(process.env.RATE);
  const t0 = performance.now();
  let sent = 0;
  // What was sent, for the lossless check: the parent compares it with what it took.
  setInterval(() => process.stdout.write('sent ' + sent + '\\n'), 50);
  for (;;) {
    const owed = Math.floor(((performance.now() - t0) / 1000) * rate) - sent;
    for (let i = 0; i < owed; i++) {
      const s = Buffer.alloc(8); s.writeBigUInt64BE(seq++);
      // Every fixture batch starts [ts as float64, ...]: each message gets its own ts from the
      // clock, as an engine's do (a repeated ts let V8's number-to-string cache hide its cost).
      const payload = Buffer.from(payloads[sent++ % payloads.length]);
      payload.writeDoubleBE(Date.now() / 1000, 2);
      await pub.send([topic, s, payload]);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
})();
`;

interface Sample {
  cpuUs: number;
  messages: number;
  events: number;
  /** Of cpuUs, the kernel's, and the minor page faults over the same messages. */
  sysUs: number;
  faults: number;
  /** CPU per message by kind of thread, µs (empty where /proc has no schedstat). */
  byThread: Cpu['byThread'];
}

interface Publisher {
  child: ChildProcess;
  endpoint: string;
  /** Messages sent, as the child last said (every 50 ms). */
  sent: () => number;
}

function startPublisher(rate = RATE): Promise<Publisher> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', PUBLISHER], {
      cwd: ROOT,
      env: { ...process.env, RATE: String(rate) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    let text = '';
    let sent = 0;
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('sent ')) sent = Number(line.slice(5));
        else resolve({ child, endpoint: line.trim(), sent: () => sent });
      }
    });
  });
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU (all and the kernel's) and minor page faults so far, for a window's deltas. */
interface Mark {
  cpu: number;
  sys: number;
  faults: number;
  threads: Cpu;
}
const markNow = (): Mark => {
  const u = process.resourceUsage();
  return {
    cpu: u.userCPUTime + u.systemCPUTime,
    sys: u.systemCPUTime,
    faults: u.minorPageFault,
    threads: cpuMs(process.pid),
  };
};
/** The window from `from` to now over `messages` messages. */
const since = (from: Mark, messages: number, events: number): Sample => {
  const to = markNow();
  return {
    byThread: usPer(cpuSince(from.threads, to.threads).byThread, messages),
    cpuUs: to.cpu - from.cpu,
    sysUs: to.sys - from.sys,
    faults: to.faults - from.faults,
    messages,
    events,
  };
};

async function bare(endpoint: string): Promise<Sample> {
  const sock = new Subscriber({ linger: 0 });
  sock.subscribe();
  sock.connect(endpoint);
  let n = 0;
  let start = markNow();
  try {
    for (;;) {
      await sock.receive();
      if (++n === WARM) start = markNow();
      if (n === WARM + MEASURE) return since(start, MEASURE, 0);
    }
  } finally {
    sock.close();
  }
}

const benchSource = (endpoint: string, sink: IngestSink): KvSource =>
  new KvSource(
    {
      id: 'bench',
      name: 'bench',
      endpoint,
      mode: 'connect',
      topic: '',
      replayEndpoint: null,
      profileId: null,
    },
    sink,
  );

/**
 * KvSource into a sink: the minimum one (counting), or `wrap` around it (recording + model),
 * measured over MEASURE messages after `warm`.
 */
function ingest(endpoint: string, wrap?: IngestSink, warm = WARM): Promise<Sample> {
  return new Promise((resolve, reject) => {
    let n = 0;
    let events = 0;
    let start = markNow();
    let done = false;
    const finish = (): void => {
      const sample = since(start, MEASURE, events);
      done = true;
      void source.close().then(() => resolve(sample));
    };
    const count = (): void => {
      if (done) return;
      if (++n === warm) start = markNow();
      if (n === warm + MEASURE) finish();
    };
    // The minimum a consumer does: count what it is given.
    const sink: IngestSink = {
      record: (r) => {
        wrap?.record(r);
        if (r.k === 'batch') {
          if (n >= warm) events += r.events.length;
          count();
        } else if (r.k === 'undecoded') count();
      },
    };
    const source = benchSource(endpoint, sink);
    source.start().catch(reject);
  });
}

/** Resolves once `ready()` holds, looking every 50 ms. */
function until(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (!ready()) return;
      clearInterval(timer);
      resolve();
    }, 50);
  });
}

/**
 * Whether the whole path (a LiveSession behind a KvSource) keeps up with `rate` messages a second
 * for LOSSLESS_HOLD_S: no message lost, and at most BEHIND_S of the rate behind the publisher at
 * the end. Null when it does; else why not (or that the publisher itself fell short of the rate).
 */
async function keepsUp(rate: number, dir: string): Promise<string | null> {
  const pub = await startPublisher(rate);
  const live = await LiveSession.start(dir);
  let n = 0;
  let lastSeq = -1;
  const source = benchSource(pub.endpoint, {
    record: (r) => {
      live.sink.record(r);
      if (r.k !== 'batch') return;
      n++;
      lastSeq = r.meta.seq;
    },
  });
  try {
    await source.start();
    await until(() => n >= rate / 2);
    const lost = (): number => source.status().counters.lost + source.status().counters.gaps;
    const lost0 = lost();
    const sent0 = pub.sent();
    const t0 = performance.now();
    await until(() => performance.now() - t0 >= LOSSLESS_HOLD_S * 1000);
    const sentRate = ((pub.sent() - sent0) * 1000) / (performance.now() - t0);
    const behind = pub.sent() - 1 - lastSeq;
    if (lost() > lost0) return `lost ${lost() - lost0} batches`;
    if (behind > rate * BEHIND_S) return `${behind} messages behind after ${LOSSLESS_HOLD_S} s`;
    if (sentRate < OFFERED * rate)
      return `the publisher sent only ${Math.round(sentRate)} of ${rate} msgs/s`;
    return null;
  } finally {
    pub.child.kill();
    await source.close();
    await live.close();
  }
}

/** The highest of LOSSLESS_EVENT_RATES the whole path keeps up with (0: not even the first). */
async function losslessRate(
  eventsPerMsg: number,
  dir: string,
): Promise<{ best: number; next: string }> {
  let best = 0;
  for (const [i, events] of LOSSLESS_EVENT_RATES.entries()) {
    const why = await keepsUp(Math.ceil(events / eventsPerMsg), path.join(dir, `rate-${i}`));
    if (why !== null) return { best, next: `${events} events/s: ${why}` };
    best = events;
  }
  return { best, next: 'none (every rate tried held)' };
}

/** The fixture payloads the publisher sends, in its order. */
function fixturePayloads(): Uint8Array[] {
  return ['hybrid-int', 'legacy-int'].flatMap((f) =>
    readPayloads(path.join(ROOT, 'test/fixtures/vllm', `${f}.frames`)),
  );
}

/** The fixture batches the publisher sends, decoded, in its order. */
function fixtureBatches(): EventRecord[][] {
  const batches: EventRecord[][] = [];
  for (const p of fixturePayloads()) {
    const d = decodeBatch(p, {}, { source: 'bench', seq: batches.length });
    if (d.ok) batches.push(d.events);
  }
  return batches;
}

/**
 * The recording's line encoding alone, in process: CPU per message of writing the fixture
 * batches' event lines as bytes (EventLines), the decoded batches made beforehand. The best of
 * ROUNDS passes over MEASURE messages.
 */
function encodeAlone(): number {
  const batches = fixtureBatches();
  const lines = new EventLines();
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const t = cpuNow();
    for (let i = 0; i < MEASURE; i++) {
      lines.clear();
      for (const e of batches[i % batches.length] as EventRecord[]) lines.add(e);
    }
    best = Math.min(best, (cpuNow() - t) / MEASURE);
  }
  return best;
}

/** Messages per 1 ms timer tick of the paced in-process feed: about the publisher's 20,000/s. */
const PACED_PER_TICK = 20;
/** Messages between two turns of the event loop when the in-process feed runs back to back. */
const BACK_TO_BACK_PER_TURN = 2000;
/** Rounds of each way of feeding the in-process path (each in a child of its own). */
const PACED_ROUNDS = 3;

/**
 * The path past the socket (decode as KvSource does, recording, model, analysis), in process over
 * the fixture payloads, fed back to back (variant 0) or paced, PACED_PER_TICK messages a 1 ms
 * timer tick (variant 1): the time inside the calls per message over MEASURE after WARM (the
 * ticks' own cost left out). The same work comes dearer a few messages per wake-up, as it does
 * from a socket, than in a loop: what an in-process A/B of a change on this path overstates.
 */
export async function pacedRound(variant: number): Promise<number> {
  // Copies: each gets a ts from the clock written into it.
  const payloads = fixturePayloads().map((p) => Buffer.from(p));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-bench-paced-'));
  const live = await LiveSession.start(dir);
  const origin = { source: 'bench', seq: 0 };
  // Back to back, the loop still lets the event loop turn now and then: the recording's queue
  // goes to gzip and the disk on later turns (held all along, it would fill and refuse lines).
  const perTick = variant === 0 ? BACK_TO_BACK_PER_TURN : PACED_PER_TICK;
  let inside = 0;
  try {
    for (let n = 0; n < WARM + MEASURE;) {
      for (let k = 0; k < perTick; k++, n++) {
        const p = payloads[n % payloads.length] as Buffer;
        // Every fixture batch starts [ts as float64, ...]: a ts from the clock, as the publisher's.
        p.writeDoubleBE(Date.now() / 1000, 2);
        const t0 = performance.now();
        origin.seq = n;
        const d = decodeBatch(p, { hashParts: true }, origin);
        if (d.ok && d.ts !== null)
          live.sink.record({
            k: 'batch',
            meta: { source: 'bench', seq: n, ts: d.ts, dpRank: d.dpRank },
            events: d.events,
          });
        if (n >= WARM) inside += performance.now() - t0;
      }
      await new Promise((resolve) =>
        variant === 0 ? setImmediate(resolve) : setTimeout(resolve, 1),
      );
    }
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return (inside * 1000) / MEASURE;
}

/** The receivers measured, each round of each in a child of its own. */
const RECEIVERS = [
  'bare',
  'KvSource',
  'whole path',
  'whole path, steady',
  'KvSource + recording',
] as const;

interface RoundSample extends Sample {
  /** The recording's file bytes (KvSource + recording). */
  recBytes?: number;
}

/** One round of receiver `variant` on the publisher at `endpoint`, in a child. */
export async function ingestRound(variant: number, [endpoint]: string[]): Promise<RoundSample> {
  if (endpoint === undefined) throw new Error('ingest round: no endpoint');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-bench-round-'));
  try {
    switch (RECEIVERS[variant]) {
      case 'bare':
        return await bare(endpoint);
      case 'KvSource':
        return await ingest(endpoint);
      case 'whole path': {
        const live = await LiveSession.start(dir);
        const sample = await ingest(endpoint, live.sink);
        await live.close();
        return sample;
      }
      case 'whole path, steady': {
        // Once the event log has filled its arena a first time (the warm-up ends past that lap):
        // a new session writes to fresh pages at first, each faulted in by the kernel once.
        const batches = fixtureBatches();
        const perMsg = batches.reduce((n, b) => n + b.length, 0) / batches.length;
        const live = await LiveSession.start(dir);
        const firstLap = Math.ceil((1.2 * DEFAULT_RING_SIZE) / perMsg);
        const sample = await ingest(endpoint, live.sink, Math.max(WARM, firstLap));
        await live.close();
        return sample;
      }
      case 'KvSource + recording': {
        // The recording's own share: its file's lines, gzip and writes, nothing else.
        const rec = await Recording.create({ dir, app: 'bench' });
        const sample = await ingest(endpoint, rec);
        await rec.close();
        return { ...sample, recBytes: rec.status().bytes };
      }
      default:
        throw new Error(`no receiver ${variant}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the ingest benchmark: CPU per message of KvSource against a bare receive loop. */
export async function runIngestBench(): Promise<BenchResult> {
  const { child, endpoint } = await startPublisher();
  let rounds: RoundSample[][];
  let hotUs: number[] = [];
  let pacedUs: number[] = [];
  let lossless = { best: 0, next: '' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-bench-'));
  try {
    rounds = await childRounds<RoundSample>('ingest', RECEIVERS.length, ROUNDS, [endpoint]);
    child.kill();
    [hotUs = [], pacedUs = []] = await childRounds<number>('ingest-paced', 2, PACED_ROUNDS);
    const ingested = rounds[1]?.[0] as RoundSample;
    lossless = await losslessRate(ingested.events / ingested.messages, dir);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  const perMessage = (rs: RoundSample[]): number[] => rs.map((r) => r.cpuUs / r.messages);
  const [bareUs, ingestUs, wholeUs, steadyUs, recUs] = rounds.map(perMessage) as [
    number[],
    number[],
    number[],
    number[],
    number[],
  ];
  const ingested = rounds[1] as RoundSample[];
  const eventsPerMsg =
    ingested.reduce((n, r) => n + r.events, 0) / ingested.reduce((n, r) => n + r.messages, 0);
  const recBytes = median((rounds[4] ?? []).map((r) => r.recBytes ?? 0));
  /** Per receiver, the medians of its rounds' kernel CPU and page faults per message. */
  const kernel = RECEIVERS.map((name, k) => {
    const rs = rounds[k] ?? [];
    const sysUs = median(rs.map((r) => r.sysUs / r.messages));
    const faults = median(rs.map((r) => r.faults / r.messages));
    return `${name} ${sysUs.toFixed(2)} µs / ${faults.toFixed(3)}`;
  });
  /** Per receiver, the medians of its rounds' CPU per message by kind of thread. */
  const threads = RECEIVERS.map(
    (name, k) => `${name} ${threadSplit((rounds[k] ?? []).map((r) => r.byThread))}`,
  );
  const b = median(bareUs);
  const i = median(ingestUs);
  const w = median(wholeUs);
  const rec = median(recUs);
  const encodeUs = encodeAlone();
  return {
    title: `Live path CPU vs a bare zeromq.js receive loop (${MEASURE} msgs x ${ROUNDS} rounds at ${RATE}/s, each in a process of its own, fixture payloads)`,
    rows: [
      ['bare receive, CPU per message', `${b.toFixed(2)} µs`],
      ['KvSource (parse+decode+sequence+sink), CPU per message', `${i.toFixed(2)} µs`],
      ['events per message', eventsPerMsg.toFixed(2)],
      ['KvSource CPU per event', `${(i / Math.max(eventsPerMsg, 1e-9)).toFixed(2)} µs`],
      ['rounds (bare)', bareUs.map((x) => x.toFixed(2)).join(' / ')],
      ['rounds (ingest)', ingestUs.map((x) => x.toFixed(2)).join(' / ')],
      ['rounds (whole path)', wholeUs.map((x) => x.toFixed(2)).join(' / ')],
      ['rounds (whole path, steady)', steadyUs.map((x) => x.toFixed(2)).join(' / ')],
      ['rounds (KvSource + recording)', recUs.map((x) => x.toFixed(2)).join(' / ')],
      ['KvSource ratio to the bare loop', (i / b).toFixed(2)],
      [
        'KvSource + recording alone, CPU per message',
        `${rec.toFixed(2)} µs (${(rec - i).toFixed(2)} µs past KvSource; ${(recBytes / (WARM + MEASURE)).toFixed(0)} B of gzip per message)`,
      ],
      ['the event lines alone (bytes, in process), CPU per message', `${encodeUs.toFixed(2)} µs`],
      [
        `the path past the socket in process (decode, recording, model, analysis): back to back / paced ${PACED_PER_TICK} a 1 ms tick, time inside per message`,
        `${median(hotUs).toFixed(2)} / ${median(pacedUs).toFixed(2)} µs (${(median(pacedUs) / median(hotUs)).toFixed(2)}x; rounds ${hotUs.map((x) => x.toFixed(2)).join(' ')} / ${pacedUs.map((x) => x.toFixed(2)).join(' ')})`,
      ],
      [
        'of each, the kernel: CPU per message / minor page faults per message (medians)',
        kernel.join(', '),
      ],
      [
        "of each, by thread: main / ZeroMQ's I/O / the rest (V8's helpers, libuv's pool: gzip), µs per message (medians)",
        threads.join(', '),
      ],
      [
        'whole path (+ recording + model + analysis), CPU per message',
        `${w.toFixed(2)} µs (${(w - i).toFixed(2)} µs past KvSource)`,
      ],
      ['whole path / bare, round by round (not the verdict)', pairedRatios(wholeUs, bareUs)],
      [
        "the same after the event log's first lap (steady; not the verdict), CPU per message",
        `${median(steadyUs).toFixed(2)} µs, ${(median(steadyUs) / b).toFixed(2)}x the bare loop`,
      ],
      [
        `highest lossless rate held ${LOSSLESS_HOLD_S} s (tried ${LOSSLESS_EVENT_RATES.map((r) => r / 1000).join(', ')}k events/s)`,
        lossless.best === 0
          ? `below ${LOSSLESS_EVENT_RATES[0]} events/s`
          : `${lossless.best} events/s (${Math.ceil(lossless.best / Math.max(eventsPerMsg, 1e-9))} msgs/s)`,
      ],
      ['the next rate', lossless.next],
    ],
    // DESIGN's budget is for the whole live path, analysis included.
    ratio: w / b,
    budget: 2.0,
  };
}
