// `npm run bench`: every benchmark, each measured against its baseline in the same run, each in a
// process of its own (as JMH forks per benchmark), so that none inherits another's JIT type
// feedback, heap or threads.
import { spawn } from 'node:child_process';
import { analysisRound, runAnalysisBench, runGhostMemoryBench } from './analysis-bench';
import type { BenchResult } from './bench-result';
import { runCaptureBench } from './capture-bench';
import { runCrashBench } from './crash-bench';
import { runDecodeBench } from './decode-bench';
import { fleetRound, runFleetBench } from './fleet-bench';
import { runFramesBench } from './frames-bench';
import { ingestRound, pacedRound, runIngestBench } from './ingest-bench';
import { runMemoryBench } from './memory-bench';
import { OPEN_CHILD_FLAG, openChild, runOpenBench } from './open-bench';
import { ringRound, runRingBench } from './ring-bench';
import { ROUND_CHILD_FLAG, runRoundChild } from './child-rounds';
import { runServeMemoryBench } from './serve-memory-bench';

const benches: [string, () => Promise<BenchResult | BenchResult[]>][] = [
  ['decode', runDecodeBench],
  ['ingest', runIngestBench],
  ['ring', runRingBench],
  ['capture', runCaptureBench],
  ['memory', runMemoryBench],
  ['frames', runFramesBench],
  ['serve-memory', runServeMemoryBench],
  ['analysis', runAnalysisBench],
  ['ghost-memory', runGhostMemoryBench],
  ['crash', runCrashBench],
  ['fleet', runFleetBench],
  ['open', runOpenBench],
];

/** Runs one bench in this process and prints its results; false when one is over its budget. */
async function runOne(run: () => Promise<BenchResult | BenchResult[]>): Promise<boolean> {
  let within = true;
  // A bench that measures several budgets in one setup returns one result per budget.
  for (const result of [await run()].flat()) {
    const ok = result.ratio <= result.budget;
    if (!ok) within = false;
    const width = Math.max(...result.rows.map(([label]) => label.length));
    process.stdout.write(`\n${result.title}\n`);
    for (const [label, value] of result.rows)
      process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`);
    process.stdout.write(
      `  ratio ${result.ratio.toFixed(2)} (budget ${result.budget.toFixed(2)}): ${ok ? 'within budget' : 'OVER BUDGET'}\n`,
    );
  }
  return within;
}

/** Runs the named benches (all when none is named), each in a child of this bundle. */
async function main(names: string[]): Promise<void> {
  const unknown = names.filter((n) => !benches.some(([name]) => name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown bench ${unknown.join(', ')} (known: ${benches.map(([n]) => n).join(', ')})\n`,
    );
    process.exitCode = 2;
    return;
  }
  /** Benches over their budget, or that failed. */
  let notMet = 0;
  for (const [name] of benches) {
    if (names.length && !names.includes(name)) continue;
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1] as string, ONE_BENCH_FLAG, name],
      { stdio: 'inherit' },
    );
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) notMet++;
  }
  process.exitCode = notMet ? 1 : 0;
}

/** The argument that makes the bundle run one bench in this process (see main). */
const ONE_BENCH_FLAG = '--one-bench';
const [flag, ...args] = process.argv.slice(2);
const [mode = '', arg = '', ...rest] = args;
// The open bench runs each reader in a child of this same bundle, to measure its own CPU and RSS;
// the ring, analysis, ingest and fleet benches each round likewise (child-rounds.ts).
if (flag === OPEN_CHILD_FLAG) void openChild(mode as Parameters<typeof openChild>[0], arg);
else if (flag === ROUND_CHILD_FLAG)
  void runRoundChild(
    {
      ring: ringRound,
      analysis: analysisRound,
      ingest: ingestRound,
      'ingest-paced': pacedRound,
      fleet: fleetRound,
    },
    mode,
    Number(arg),
    rest,
  );
else if (flag === ONE_BENCH_FLAG) {
  const run = benches.find(([name]) => name === mode)?.[1];
  if (run === undefined) throw new Error(`no bench ${mode}`);
  void runOne(run).then((within) => (process.exitCode = within ? 0 : 1));
} else void main(process.argv.slice(2));
