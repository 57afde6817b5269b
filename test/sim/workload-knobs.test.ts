// The simulator's workload knobs (issue 8): re-announced hits, routing stickiness across ranks,
// pool sizes, and the demo's consecutive rank ports. Checked through the cache analysis.
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { simOptionsFromFlags } from '../../electron/cli/sim-command';
import { startOnConsecutivePorts } from '../../electron/sim/consecutive-ports';
import { encodeBatch } from '../../electron/sim/encode';
import { Truth } from '../../electron/sim/truth';
import { SharedTraffic, Workload, type WorkloadOptions } from '../../electron/sim/workload';
import { decodeBatch } from '../../electron/wire/decode-batch';

/** Runs ranks in turn through decode and the analysis; returns the report and each rank's peak GPU. */
function analyse(batches: number, opts: Partial<WorkloadOptions> & { dp: number }) {
  const shared = new SharedTraffic();
  const ranks = Array.from(
    { length: opts.dp },
    (_, rank) =>
      new Workload({ seed: 21, format: 'map', hash: 'int', clearEvery: 0, ...opts, rank, shared }),
  );
  const truths = ranks.map(() => new Truth());
  const peaks = ranks.map(() => 0);
  const a = new CacheAnalysis();
  for (let i = 0; i < batches; i++) {
    ranks.forEach((w, r) => {
      const ts = 1_767_225_600 + i / 25;
      const events = w.nextBatch();
      truths[r]!.apply(i, events, false, false);
      peaks[r] = Math.max(peaks[r]!, truths[r]!.residentCount('GPU'));
      const d = decodeBatch(encodeBatch(ts, events, r, 'map'));
      if (!d.ok) throw new Error(d.error);
      const source = `sim#${r}`;
      a.apply({
        k: 'batch',
        meta: { source, seq: i, ts, dpRank: r },
        events: d.events.map(({ idx, event }) => ({
          source,
          seq: i,
          ts,
          dp_rank: r,
          idx,
          event,
        })),
      });
    });
  }
  return { report: a.report(), peaks, truths };
}

// Each test generates and decodes a few thousand batches: give them room on a loaded machine.
describe('workload knobs', { timeout: 60_000 }, () => {
  it('re-announces resident blocks only when asked to, without changing residency', () => {
    const off = analyse(800, { dp: 1, gpuBlocks: 1024 }).report;
    expect(off.totals.announcedHits).toBe(0);
    const on = analyse(800, { dp: 1, gpuBlocks: 1024, reannounce: 0.5 });
    expect(on.report.totals.announcedHits).toBeGreaterThan(1000);
    expect(on.report.totals.hitRatio).toBeGreaterThan(0.05);
    // What the analysis holds resident is what the published events leave resident.
    expect(on.report.whatIf.find((w) => w.medium === 'GPU')?.peakResident).toBe(on.peaks[0]);
    expect(on.report.sources[0]?.residentBlocks).toBe(
      on.truths[0]!.residentCount('GPU') + on.truths[0]!.residentCount('CPU'),
    );
  });

  it('moves conversations between ranks when stickiness is below 1: more duplicate stores', () => {
    const sticky = analyse(700, { dp: 2, gpuBlocks: 1024, stickiness: 1 });
    const loose = analyse(700, { dp: 2, gpuBlocks: 1024, stickiness: 0.7 });
    // Shared system prompts already put the same prefix on both ranks...
    expect(sticky.report.crossSource.duplicateStores).toBeGreaterThan(0);
    // ...a router without affinity makes far more of it, and routing regret with it.
    expect(loose.report.crossSource.duplicateStores).toBeGreaterThan(
      3 * sticky.report.crossSource.duplicateStores,
    );
    expect(loose.report.crossSource.routingRegretBlocks).toBeGreaterThan(
      sticky.report.crossSource.routingRegretBlocks,
    );
    // Each rank's pool still never holds more than its size.
    for (const p of [...sticky.peaks, ...loose.peaks]) expect(p).toBeLessThanOrEqual(1024);
  });

  it('thrashes with a small GPU pool: re-stores within the window', () => {
    const small = analyse(800, { dp: 1, gpuBlocks: 768 }).report;
    const big = analyse(800, { dp: 1, gpuBlocks: 4096 }).report;
    expect(small.totals.thrashRestores).toBeGreaterThan(1000);
    expect(big.totals.restores).toBeLessThan(small.totals.restores / 10);
  });

  it('refuses shares outside 0..1, in the workload and on the command line', () => {
    expect(() => new Workload({ seed: 1, format: 'map', hash: 'int', reannounce: 1.5 })).toThrow(
      /reannounce must be a share from 0 to 1/,
    );
    const flags = {
      host: '127.0.0.1',
      port: '0',
      replay: false,
      format: 'map',
      hash: 'int',
      dp: '2',
      rate: '10',
      seed: '1',
      topic: 'kv-events',
      gpuBlocks: '1024',
      cpuBlocks: '2048',
      reannounce: '0.25',
      stickiness: '0.9',
      clockOffset: '-30',
    };
    expect(simOptionsFromFlags(flags)).toMatchObject({
      gpuBlocks: 1024,
      cpuBlocks: 2048,
      reannounce: 0.25,
      stickiness: 0.9,
      clockOffsetS: -30,
    });
    expect(() => simOptionsFromFlags({ ...flags, stickiness: 'high' })).toThrow(
      /--stickiness must be a share from 0 to 1/,
    );
    expect(() => simOptionsFromFlags({ ...flags, gpuBlocks: '10' })).toThrow(/--gpu-blocks/);
    expect(() => simOptionsFromFlags({ ...flags, clockOffset: 'soon' })).toThrow(
      /--clock-offset must be a number of seconds/,
    );
    // Minus the epoch time (README): an engine stamping seconds since its start.
    const sinceStart = String(-Math.floor(Date.now() / 1000));
    expect(simOptionsFromFlags({ ...flags, clockOffset: sinceStart })).toMatchObject({
      clockOffsetS: Number(sinceStart),
    });
    expect(() => simOptionsFromFlags({ ...flags, clockOffset: '-1e10' })).toThrow(
      /behind \(negative\) at most the epoch time now/,
    );
    expect(() => simOptionsFromFlags({ ...flags, clockOffset: '4e8' })).toThrow(
      /ahead at most 315360000/,
    );
  });
});

describe('the demo on consecutive ports', () => {
  it('puts rank r on base + r and its replay on base + dp + r, as a profile expects', async () => {
    const sim = await startOnConsecutivePorts({ format: 'map', hash: 'int', dp: 2, replay: true });
    try {
      const port = (e: string | null): number => Number(/:(\d+)$/.exec(e ?? '')?.[1]);
      const base = port(sim.ranks[0]!.pubEndpoint);
      expect(sim.ranks.map((r) => port(r.pubEndpoint))).toEqual([base, base + 1]);
      expect(sim.ranks.map((r) => port(r.replayEndpoint))).toEqual([base + 2, base + 3]);
    } finally {
      await sim.close();
    }
  });
});
