// A fleet into one collector: 64 simulated data-parallel ranks (`kvscope sim --dp 64`, in a child
// process so its CPU is not counted) into one `kvscope collect` (the Collector), against a bare
// zeromq.js receive loop (the ratio, against DESIGN's live-path budget) and, for the breakdown,
// against 64 KvSources into a counting sink and the collector without its analysis. Each round of
// each receiver runs in a process of its own (child-rounds.ts), the receivers interleaved: run in
// one process, the later receivers took the JIT's type feedback and the heap the earlier ones left,
// and the memory per rank read below zero. CPU per message is measured with process.cpuUsage()
// between two reads of the message count (read every 100 ms, so the reading costs next to
// nothing), and split by thread (main, ZeroMQ's I/O thread, the rest) from /proc; memory per rank
// after a GC with the collector running. /metrics scrapes of the 64 ranks are timed too (a
// process's first apart: its code runs cold). The analysis' own share is also measured apart, in
// rounds of its own: the 64 ranks' records taken, then replayed through a CacheAnalysis in the same
// process twice (CPU per message past WARM): the first replay runs the analysis' code cold, as a
// collector's first seconds do, the second once the JIT has seen it all (before, only a warm
// replay was printed, and it read as the analysis' cost). Neither moves with how many messages a
// wake-up of the event loop finds, as the collector's figures do on a busy machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { Subscriber } from 'zeromq';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { KvSource } from '../../electron/ingest/kv-source';
import { Collector } from '../../electron/metrics/collector';
import type { IngestRecord, IngestSink } from '../../shared/records';
import type { Profile } from '../../shared/api-types';
import { CLI, ROOT, ensureBuilt } from '../support/built-app';
import { median, pairedRatios, type BenchResult } from './bench-result';
import { childRounds } from './child-rounds';
import { cpuMs, cpuSince, threadSplit, usPer, type Cpu } from './thread-cpu';

const RANKS = 64;
const RATE = 25; // batches per second per rank: a busy engine
const WARM = RANKS * RATE * 2; // messages (2 s) before measuring
const MEASURE = 16_000; // messages over all ranks (10 s at 64 x 25/s)
/**
 * Rounds of the four receivers in turn. With two, the bare loop's rounds read 33 and 44 µs in one
 * run (the machine's speed between them): their median was that noise, and so was the verdict.
 */
const ROUNDS = 4;
/** Scrapes timed after a collector's first. */
const WARM_SCRAPES = 5;

interface Sample {
  /** CPU per message, µs. */
  us: number;
  /** The same by kind of thread (empty where /proc has no schedstat). */
  byThread: Cpu['byThread'];
  /** Share of one core per rank. */
  corePerRank: number;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function startFleet(): Promise<{ child: ChildProcess; endpoints: string[] }> {
  ensureBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'sim', '--port', '0', '--dp', String(RANKS), '--rate', String(RATE), '--seed', '3'],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const endpoints: string[] = [];
    let text = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`kvscope sim exited (${code}): ${text}`)));
    child.stderr?.on('data', (d: Buffer) => {
      text += d.toString();
      for (const m of text.matchAll(/rank (\d+): PUB bound (\S+),/g))
        endpoints[Number(m[1])] = m[2] as string;
      if (endpoints.filter(Boolean).length === RANKS) {
        child.removeAllListeners('exit');
        resolve({ child, endpoints });
      }
    });
  });
}

/** CPU between the first count read past WARM and the first past WARM + MEASURE. */
function measure(count: () => number): Promise<Sample> {
  return new Promise((resolve) => {
    let start: { cpu: number; threads: Cpu; n: number; t: number } | null = null;
    const timer = setInterval(() => {
      const n = count();
      if (start === null) {
        if (n >= WARM)
          start = { cpu: cpuNow(), threads: cpuMs(process.pid), n, t: performance.now() };
        return;
      }
      if (n < start.n + MEASURE) return;
      clearInterval(timer);
      const cpuUs = cpuNow() - start.cpu;
      const wallUs = (performance.now() - start.t) * 1000;
      const messages = n - start.n;
      const byThread = usPer(cpuSince(start.threads, cpuMs(process.pid)).byThread, messages);
      resolve({ us: cpuUs / messages, byThread, corePerRank: cpuUs / wallUs / RANKS });
    }, 100);
  });
}

async function bare(endpoints: string[]): Promise<Sample> {
  let n = 0;
  const socks = endpoints.map((e) => {
    const s = new Subscriber({ linger: 0 });
    s.subscribe();
    s.connect(e);
    return s;
  });
  const loops = socks.map(async (s) => {
    for (;;) {
      try {
        await s.receive();
      } catch {
        return; // closed
      }
      n++;
    }
  });
  const sample = await measure(() => n);
  for (const s of socks) s.close();
  await Promise.all(loops);
  return sample;
}

/**
 * The ingest every consumer pays: 64 KvSources into a sink that only counts (and, given `keep`,
 * keeps every record for a replay).
 */
async function sourcesOnly(
  endpoints: string[],
  keep: IngestRecord[] | null = null,
): Promise<Sample> {
  let n = 0;
  const sink: IngestSink = {
    record: (r) => {
      keep?.push(r);
      if (r.k === 'batch' || r.k === 'undecoded') n++;
    },
  };
  const sources = endpoints.map(
    (endpoint, i) =>
      new KvSource(
        {
          id: `rank-${i}`,
          name: `engine #${i}`,
          endpoint,
          mode: 'connect',
          topic: '',
          replayEndpoint: null,
          profileId: null,
        },
        sink,
      ),
  );
  await Promise.all(sources.map((src) => src.start()));
  const sample = await measure(() => n);
  await Promise.all(sources.map((src) => src.close()));
  return sample;
}

/** The analysis alone in a process: CPU per message past WARM, its first replay and a second. */
interface AloneRun {
  first: number;
  again: number;
}

/** The records of one sources run, replayed through a new CacheAnalysis twice. */
async function analysisAlone(endpoints: string[]): Promise<AloneRun> {
  const records: IngestRecord[] = [];
  await sourcesOnly(endpoints, records);
  const replay = (): number => {
    const a = new CacheAnalysis();
    let n = 0;
    let start = 0;
    for (const r of records) {
      a.apply(r);
      if (r.k === 'batch' && ++n === WARM) start = cpuNow();
    }
    return (cpuNow() - start) / (n - WARM);
  };
  const first = replay();
  return { first, again: replay() };
}

/** The receivers measured, and the analysis alone; each round of each in a child of its own. */
const RECEIVERS = ['bare', 'sources', 'lean', 'full', 'analysis alone'] as const;

interface CollectorRun {
  sample: Sample;
  heapPerRank: number;
  rssPerRank: number;
  /** The process's first scrape, and the median of the ones after it. */
  firstScrapeMs: number;
  scrapeMs: number;
  scrapeBytes: number;
}

/** One round of receiver `variant` on the fleet's endpoints, in a child. */
export async function fleetRound(
  variant: number,
  endpoints: string[],
): Promise<Sample | CollectorRun | AloneRun> {
  if (endpoints.length !== RANKS) throw new Error(`fleet round: ${endpoints.length} endpoints`);
  switch (RECEIVERS[variant]) {
    case 'bare':
      return bare(endpoints);
    case 'sources':
      return sourcesOnly(endpoints);
    case 'lean':
      return collector(endpoints, false);
    case 'full':
      return collector(endpoints, true);
    case 'analysis alone':
      return analysisAlone(endpoints);
    default:
      throw new Error(`no receiver ${variant}`);
  }
}

async function collector(endpoints: string[], analysis: boolean): Promise<CollectorRun> {
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const profiles: Profile[] = endpoints.map((endpoint, i) => ({
    id: `rank-${i}`,
    name: `engine #${i}`,
    endpoint,
    mode: 'connect',
    topic: '',
    replayEndpoint: null,
    dpRanks: 1,
  }));
  const c = await Collector.start({
    profiles,
    recordDir: null,
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    analysis,
  });
  const sample = await measure(() =>
    c.sources.reduce((n, s) => n + s.status().counters.messages, 0),
  );
  // The first scrape of a process runs the exposition's code cold; on a busy 2-core machine a
  // scrape waits for the CPU now and then: the first apart, then the median of the next five.
  const scrapes: number[] = [];
  let text = '';
  for (let i = 0; i < 1 + WARM_SCRAPES; i++) {
    const t0 = performance.now();
    text = await (await fetch(c.server.url)).text();
    scrapes.push(performance.now() - t0);
  }
  const firstScrapeMs = scrapes[0] as number;
  const scrapeMs = median(scrapes.slice(1));
  gc?.();
  const heapPerRank = (process.memoryUsage().heapUsed - heap0) / RANKS;
  const rssPerRank = (process.memoryUsage().rss - rss0) / RANKS;
  await c.close();
  return { sample, heapPerRank, rssPerRank, firstScrapeMs, scrapeMs, scrapeBytes: text.length };
}

/** Rounds' figures in µs: their median, then each. */
function medianOfRounds(us: number[]): string {
  return `${median(us).toFixed(2)} µs (rounds ${us.map((x) => x.toFixed(1)).join(' ')})`;
}

/** Runs the fleet benchmark: one collector's CPU and memory per rank for 64 ranks. */
export async function runFleetBench(): Promise<BenchResult> {
  const { child, endpoints } = await startFleet();
  let rounds: (Sample | CollectorRun | AloneRun)[][];
  try {
    rounds = await childRounds('fleet', RECEIVERS.length, ROUNDS, endpoints);
  } finally {
    child.kill();
  }
  const [bareRuns, ingestRuns, leanRuns, fullRuns, aloneRuns] = rounds as [
    Sample[],
    Sample[],
    CollectorRun[],
    CollectorRun[],
    AloneRun[],
  ];
  const b = median(bareRuns.map((r) => r.us));
  const ingest = median(ingestRuns.map((r) => r.us));
  const lean = median(leanRuns.map((r) => r.sample.us));
  const full = median(fullRuns.map((r) => r.sample.us));
  /** Each receiver's samples, in RECEIVERS' order (bare, sources, lean, full). */
  const receiverSamples = [
    bareRuns,
    ingestRuns,
    leanRuns.map((r) => r.sample),
    fullRuns.map((r) => r.sample),
  ];
  const pct = (runs: CollectorRun[]) =>
    `${(median(runs.map((r) => r.sample.corePerRank)) * 100).toFixed(2)} % of a core`;
  const kib = (x: number) => `${(x / 1024).toFixed(0)} KiB`;
  const mem = (runs: CollectorRun[]) =>
    `heap ${kib(median(runs.map((r) => r.heapPerRank)))}, RSS ${kib(median(runs.map((r) => r.rssPerRank)))}`;
  const last = fullRuns.at(-1);
  return {
    title: `Fleet: ${RANKS} simulated ranks at ${RATE} batches/s each into one collector (${MEASURE} msgs x ${ROUNDS} rounds)`,
    rows: [
      ['bare receive (64 sockets), CPU per message', `${b.toFixed(2)} µs`],
      ['64 KvSources into a counting sink, CPU per message', `${ingest.toFixed(2)} µs`],
      ['collector --no-analysis, CPU per message', `${lean.toFixed(2)} µs`],
      ['collector (with the cache analysis), CPU per message', `${full.toFixed(2)} µs`],
      [
        'the analysis alone, the same records replayed in process: its first replay, CPU per message',
        medianOfRounds(aloneRuns.map((r) => r.first)),
      ],
      [
        'the analysis alone: replayed again in the same process, CPU per message',
        medianOfRounds(aloneRuns.map((r) => r.again)),
      ],
      [
        'rounds (bare / sources / lean / full)',
        receiverSamples.map((rs) => rs.map((r) => r.us.toFixed(1)).join(' ')).join(' | '),
      ],
      [
        'collector (with analysis) / bare, round by round (not the verdict)',
        pairedRatios(
          fullRuns.map((r) => r.sample.us),
          bareRuns.map((r) => r.us),
        ),
      ],
      [
        'main / ZeroMQ / other threads, µs per message (medians): bare, sources, lean, full',
        receiverSamples.map((runs) => threadSplit(runs.map((r) => r.byThread))).join(' | '),
      ],
      ['collector --no-analysis, CPU per rank', pct(leanRuns)],
      ['collector, CPU per rank', pct(fullRuns)],
      ['collector --no-analysis, memory per rank (after GC)', mem(leanRuns)],
      ['collector, memory per rank (after GC)', mem(fullRuns)],
      [
        "a /metrics scrape of 64 ranks: the process's first / the next five's median",
        `${(last?.firstScrapeMs ?? 0).toFixed(1)} / ${(last?.scrapeMs ?? 0).toFixed(1)} ms, ${kib(last?.scrapeBytes ?? 0)}`,
      ],
      [
        'sources ratio to the bare loop (decode and sequence ~3.5 events of many blocks)',
        (ingest / b).toFixed(2),
      ],
      ['collector --no-analysis ratio to the bare loop', (lean / b).toFixed(2)],
      ['collector (with analysis) ratio to the bare loop', (full / b).toFixed(2)],
      ['collector (with analysis) ratio to the sources alone', (full / ingest).toFixed(2)],
    ],
    // DESIGN's budget for the whole live path, of which the collector (with its analysis) is a
    // part: at most 2x the bare receive loop.
    ratio: full / b,
    budget: 2.0,
  };
}
