// Memory of the real `kvscope serve` over a long fast run: a publisher sends 18,000 batches/s of
// the simulator's workload with new hashes every 4,000 batches and ts from the clock (an engine's
// stream keeps bringing new blocks; see fast-publisher.ts), a renderer stand-in takes every frame,
// and the serve process's RSS (main thread and service thread together: the whole process) is
// sampled until the screen has shown 10 M events. Every 2 s the bench also reads serve's /metrics
// (rendered by the service thread: its JS heap from prom-client's nodejs_heap_*, its typed arrays
// by part from kvscope_memory_bytes) and /proc (file-backed and anonymous RSS), and prints the
// breakdown of the sample nearest the peak: what is left of the anonymous RSS past the service
// thread's heap and buffers is the main thread's heap, ZeroMQ, zlib, thread stacks and what malloc
// holds free.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../support/built-app';
import { FrameReader, rssMb, startServeChild, stopChild, type Child } from '../support/crash-run';
import { FastPublisher } from '../support/fast-publisher';
import type { BenchResult } from './bench-result';

const RATE = 18_000;
/** DESIGN.md: 10 M events at 18,000 msg/s keep the main side under 400 MB RSS. */
const EVENTS = Number(process.env.KVSCOPE_BENCH_MEMORY_EVENTS ?? 10_000_000);
const RSS_BUDGET_MB = 400;
const SAMPLE_MS = 250;
const METRICS_MS = 2000;
/** A run that cannot reach its events in this long says how far it got. */
const MAX_MINUTES = 20;
const MB = 2 ** 20;

/** One look at serve: /proc and the service thread's /metrics. */
interface Breakdown {
  events: number;
  rss: number;
  file: number;
  anon: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  /** kvscope_memory_bytes by part, MB. */
  parts: Map<string, number>;
  resident: number;
  lost: number;
}

/** RssFile and RssAnon of a process in MB (Linux /proc), zeros where they cannot be read. */
async function rssParts(pid: number): Promise<{ file: number; anon: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { file: kb('RssFile') / 1024, anon: kb('RssAnon') / 1024 };
}

/** The figures of serve's /metrics the breakdown reads (null when it cannot be read). */
async function metrics(
  origin: string,
): Promise<Omit<Breakdown, 'events' | 'rss' | 'file' | 'anon'> | null> {
  const text = await fetch(`${origin}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  if (text === '') return null;
  const one = (name: string) => {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return m?.[1] ? Number(m[1]) / MB : 0;
  };
  const sum = (name: string) => {
    let n = 0;
    for (const m of text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gm')))
      n += Number(m[1]);
    return n;
  };
  const parts = new Map<string, number>();
  for (const m of text.matchAll(/^kvscope_memory_bytes\{part="(\w+)"\} (\S+)$/gm))
    parts.set(m[1] as string, Number(m[2]) / MB);
  return {
    heapTotal: one('nodejs_heap_size_total_bytes'),
    heapUsed: one('nodejs_heap_size_used_bytes'),
    external: one('nodejs_external_memory_bytes'),
    parts,
    resident: sum('kvscope_resident_blocks'),
    lost: sum('kvscope_lost_batches_total'),
  };
}

const mb = (n: number) => n.toFixed(0);

/** The breakdown's rows: RSS = file-backed + anonymous, the anonymous part by what holds it. */
function breakdownRows(b: Breakdown): [string, string][] {
  const typed = [...b.parts.values()].reduce((s, v) => s + v, 0);
  const otherBuffers = Math.max(0, b.external - typed);
  const rest = b.anon - b.heapTotal - typed - otherBuffers;
  const parts = [...b.parts]
    .filter(([, v]) => v >= 0.05)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
  return [
    [
      `breakdown at the sample nearest the peak (${(b.events / 1e6).toFixed(2)} M events), MB`,
      `RSS ${mb(b.rss)} = file-backed ${mb(b.file)} (node, libraries) + anonymous ${mb(b.anon)}`,
    ],
    ['  service thread: JS heap (committed / used)', `${mb(b.heapTotal)} / ${mb(b.heapUsed)}`],
    ['  service thread: typed arrays by part', `${mb(typed)}: ${parts}`],
    ['  service thread: other buffers (ZeroMQ messages, gzip)', mb(otherBuffers)],
    [
      '  the rest: main thread (HTTP, WebSocket), native (ZeroMQ, zlib, stacks), malloc free lists',
      mb(rest),
    ],
    [
      'resident blocks / lost batches then (a lost removal leaves its blocks resident)',
      `${Math.round(b.resident)} / ${Math.round(b.lost)}`,
    ],
  ];
}

/** Peak RSS of serve while 10 M events pass through it at 18,000 batches/s, and what holds it. */
export async function runServeMemoryBench(): Promise<BenchResult> {
  ensureBuilt();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kvscope-serve-memory-'));
  const publisher = await FastPublisher.start(RATE, { fresh: true });
  let serve: Child | undefined;
  let reader: FrameReader | undefined;
  try {
    const up = await startServeChild(dataDir, ['--endpoint', publisher.endpoint]);
    serve = up.serve;
    reader = await FrameReader.connect(up.url);
    const origin = new URL(up.url).origin;
    const pid = serve.proc.pid ?? 0;
    const t0 = Date.now();
    let peak = 0;
    let heapPeak = 0;
    let atPeak: Breakdown | null = null;
    let last: Breakdown | null = null;
    const marks: string[] = [];
    let nextMark = EVENTS / 4;
    let lastMetricsAt = 0;
    for (;;) {
      const shown = reader.latest?.events ?? 0;
      const rss = (await rssMb(pid)) ?? 0;
      peak = Math.max(peak, rss);
      if (Date.now() - lastMetricsAt >= METRICS_MS) {
        lastMetricsAt = Date.now();
        const m = await metrics(origin);
        if (m !== null) {
          const { file, anon } = await rssParts(pid);
          last = { events: shown, rss: file + anon, file, anon, ...m };
          heapPeak = Math.max(heapPeak, m.heapTotal);
          if (atPeak === null || last.rss >= atPeak.rss) atPeak = last;
        }
      }
      if (shown >= nextMark) {
        marks.push(`${rss.toFixed(0)}`);
        nextMark += EVENTS / 4;
      }
      if (shown >= EVENTS || Date.now() - t0 > MAX_MINUTES * 60_000) break;
      if (serve.proc.exitCode !== null) throw new Error(`serve ended:\n${serve.stderr()}`);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
    const seconds = (Date.now() - t0) / 1000;
    const frame = reader.latest;
    const shown = frame?.events ?? 0;
    // A machine too busy to take the stream stops the run early: its peak then judges nothing.
    const reached = shown >= EVENTS;
    const received = Math.round((frame?.messages ?? 0) / seconds);
    return {
      title: `Memory of kvscope serve: ${(EVENTS / 1e6).toFixed(1)} M events at ${RATE} batches/s published, new hashes throughout`,
      rows: [
        ['events shown / wall time', `${shown} in ${seconds.toFixed(0)} s`],
        [
          'reached the events asked for',
          reached
            ? 'yes'
            : `no: stopped after ${MAX_MINUTES} min, the machine took ${received} batches/s; the peak below is for what it took`,
        ],
        [
          'batches received / published',
          `${frame?.messages ?? 0} / ${publisher.sent} (the rest published after the last frame, or dropped at ZeroMQ's high-water mark: a drop is counted as lost below)`,
        ],
        ['RSS at 25 / 50 / 75 / 100% of the events, MB', marks.join(' / ')],
        ['peak RSS of the serve process (both threads), MB', peak.toFixed(0)],
        ['peak committed JS heap of the service thread, MB', heapPeak.toFixed(0)],
        ...(atPeak === null ? [] : breakdownRows(atPeak)),
        ...(last === null || last === atPeak
          ? []
          : ([
              [
                'at the end: RSS / service heap / typed arrays, MB',
                `${mb(last.rss)} / ${mb(last.heapTotal)} / ${mb([...last.parts.values()].reduce((s, v) => s + v, 0))}`,
              ],
            ] as [string, string][])),
        [
          'recording at the end: behind / not recorded',
          `${frame?.recording.behindRecords ?? 0} / ${frame?.recording.droppedRecords ?? 0} records`,
        ],
      ],
      ratio: reached ? peak / RSS_BUDGET_MB : NaN,
      budget: 1,
    };
  } finally {
    reader?.close();
    await stopChild(serve);
    publisher.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
