// kill -9 under load, several times at two rates: what the recording left behind lacks of what the
// screen showed just before. The ratio is the worst loss in seconds of arrivals against the one
// second the recording keeps within while the disk keeps up.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../support/built-app';
import { killUnderLoad, type CrashResult } from '../support/crash-run';
import type { BenchResult } from './bench-result';

const RATES = [3000, 18_000];
const KILLS = 5;

/** Kills serve KILLS times at each rate and reports the loss. */
export async function runCrashBench(): Promise<BenchResult> {
  ensureBuilt();
  const rows: [string, string][] = [];
  let worstSec = 0;
  for (const rate of RATES) {
    const runs: CrashResult[] = [];
    for (let i = 0; i < KILLS; i++) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kvscope-crash-bench-'));
      try {
        runs.push(await killUnderLoad({ rate, dataDir, warmMs: 2000, jitterMs: 4000 }));
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }
    const lost = runs.map((r) => r.lostEvents);
    const lostSec = runs.map((r) => (r.shownRate > 0 ? r.lostEvents / r.shownRate : 0));
    const outside = runs.filter(
      (r) =>
        r.fileEvents <
        r.shownEvents - r.shownRecording.behindRecords - r.shownRecording.droppedRecords,
    ).length;
    worstSec = Math.max(worstSec, ...lostSec);
    const fmt = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(' / ');
    rows.push(
      [`${rate} batches/s: batches/s published`, fmt(runs.map((r) => r.publishedRate))],
      [`${rate} batches/s: batches/s received`, fmt(runs.map((r) => r.batchRate))],
      [`${rate} batches/s: events/s shown`, fmt(runs.map((r) => r.shownRate))],
      [`${rate} batches/s: events shown at the kill`, fmt(runs.map((r) => r.shownEvents))],
      [`${rate} batches/s: lost (shown, not in the file)`, fmt(lost)],
      [`${rate} batches/s: lost, in seconds of arrivals`, fmt(lostSec, 3)],
      [
        `${rate} batches/s: behind / lag the status showed`,
        runs
          .map(
            (r) =>
              `${r.shownRecording.behindRecords} (${r.shownRecording.lagSeconds.toFixed(2)} s)`,
          )
          .join(' / '),
      ],
      [
        `${rate} batches/s: not recorded (dropped)`,
        fmt(runs.map((r) => r.shownRecording.droppedRecords)),
      ],
      [`${rate} batches/s: peak RSS of serve, MB`, fmt(runs.map((r) => r.peakRssMb ?? NaN))],
      [`${rate} batches/s: losses beyond the status's bound`, `${outside} of ${runs.length}`],
    );
  }
  return {
    title: `Crash: kill -9 of serve under load, ${KILLS} times at each of ${RATES.join(' and ')} batches/s`,
    rows,
    ratio: worstSec,
    budget: 1,
  };
}
