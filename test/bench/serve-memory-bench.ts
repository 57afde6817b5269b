// Memory of the real `kvscope serve` over a long fast run: a publisher sends 18,000 batches/s of
// the simulator's workload with new hashes every 4,000 batches and ts from the clock (an engine's
// stream keeps bringing new blocks; see fast-publisher.ts), a renderer stand-in takes every frame, and the serve process's RSS (main thread and service thread
// together: the whole process) is sampled until the screen has shown 10 M events. The service
// thread's own heap comes from its /metrics (prom-client's nodejs_heap_size_used_bytes there).
import { mkdtemp, rm } from 'node:fs/promises';
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
/** A run that cannot reach its events in this long says how far it got. */
const MAX_MINUTES = 20;

/** The service thread's heap in MB, read from serve's /metrics (null when it cannot be read). */
async function workerHeapMb(origin: string): Promise<number | null> {
  const text = await fetch(`${origin}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const m = /^nodejs_heap_size_used_bytes\S* (\S+)$/m.exec(text);
  return m?.[1] ? Number(m[1]) / 2 ** 20 : null;
}

/** Peak RSS of serve while 10 M events pass through it at 18,000 batches/s. */
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
    const marks: string[] = [];
    let nextMark = EVENTS / 4;
    let lastHeapAt = 0;
    for (;;) {
      const shown = reader.latest?.events ?? 0;
      const rss = (await rssMb(pid)) ?? 0;
      peak = Math.max(peak, rss);
      if (Date.now() - lastHeapAt >= 2000) {
        lastHeapAt = Date.now();
        heapPeak = Math.max(heapPeak, (await workerHeapMb(origin)) ?? 0);
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
    const last = reader.latest;
    const shown = last?.events ?? 0;
    // A machine too busy to take the stream stops the run early: its peak then judges nothing.
    const reached = shown >= EVENTS;
    const received = Math.round((last?.messages ?? 0) / seconds);
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
          `${last?.messages ?? 0} / ${publisher.sent} (the rest dropped at ZeroMQ's high-water mark, shown as lost)`,
        ],
        ['RSS at 25 / 50 / 75 / 100% of the events, MB', marks.join(' / ')],
        ['peak RSS of the serve process (both threads), MB', peak.toFixed(0)],
        ['peak heap of the service thread, MB', heapPeak.toFixed(0)],
        [
          'recording at the end: behind / not recorded',
          `${last?.recording.behindRecords ?? 0} / ${last?.recording.droppedRecords ?? 0} records`,
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
