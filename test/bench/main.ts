// `npm run bench`: every benchmark, each measured against its baseline in the same run.
import { runAnalysisBench, runGhostMemoryBench } from './analysis-bench';
import type { BenchResult } from './bench-result';
import { runCaptureBench } from './capture-bench';
import { runCrashBench } from './crash-bench';
import { runDecodeBench } from './decode-bench';
import { runFleetBench } from './fleet-bench';
import { runFramesBench } from './frames-bench';
import { runIngestBench } from './ingest-bench';
import { runMemoryBench } from './memory-bench';
import { OPEN_CHILD_FLAG, openChild, runOpenBench } from './open-bench';
import { runRingBench } from './ring-bench';
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

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  let overBudget = 0;
  for (const [name, run] of benches) {
    if (only.length && !only.includes(name)) continue;
    // A bench that measures several budgets in one setup returns one result per budget.
    for (const result of [await run()].flat()) {
      const ok = result.ratio <= result.budget;
      if (!ok) overBudget++;
      const width = Math.max(...result.rows.map(([label]) => label.length));
      process.stdout.write(`\n${result.title}\n`);
      for (const [label, value] of result.rows)
        process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`);
      process.stdout.write(
        `  ratio ${result.ratio.toFixed(2)} (budget ${result.budget.toFixed(2)}): ${ok ? 'within budget' : 'OVER BUDGET'}\n`,
      );
    }
  }
  process.exitCode = overBudget ? 1 : 0;
}

// The open bench runs each reader in a child of this same bundle, to measure its own CPU and RSS.
const [flag, mode, file] = process.argv.slice(2);
if (flag === OPEN_CHILD_FLAG && file !== undefined)
  void openChild(mode as Parameters<typeof openChild>[0], file);
else void main();
