// The cache analysis's cost: CPU per event against the model applying the same records (both fed
// the same decoded workload of two data-parallel ranks; each round of each in a child of its own,
// alternating: child-rounds.ts), and the heap held by a ghost list of 1,000,000 entries against a
// plain Map of the same hashes to their removal times.
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { GhostList } from '../../electron/analysis/ghost-list';
import { Holdings } from '../../electron/analysis/holdings';
import { CacheModel } from '../../electron/model/cache-model';
import { encodeBatch } from '../../electron/sim/encode';
import { Workload } from '../../electron/sim/workload';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { IngestRecord } from '../../shared/records';
import { median, type BenchResult } from './bench-result';
import { childRounds } from './child-rounds';
import { heapMb } from './heap-mb';

const BATCHES = 60_000;
const ROUNDS = 5;
const GHOSTS = 1_000_000;

function records(): { list: IngestRecord[]; events: number; blocks: number } {
  const ranks = [0, 1].map((rank) => new Workload({ seed: 7, rank, format: 'map', hash: 'int' }));
  const list: IngestRecord[] = [];
  let events = 0;
  let blocks = 0;
  for (let i = 0; i < BATCHES; i++) {
    const rank = i % 2;
    const source = `engine#${rank}`;
    const ts = 1_767_225_600 + i / 100;
    const decoded = decodeBatch(encodeBatch(ts, ranks[rank]!.nextBatch(), rank, 'map'));
    if (!decoded.ok) throw new Error(decoded.error);
    const seq = Math.floor(i / 2);
    list.push({
      k: 'batch',
      meta: { source, seq, ts, dpRank: rank },
      events: decoded.events.map(({ idx, event }) => ({
        source,
        seq,
        ts,
        dp_rank: rank,
        idx,
        event,
      })),
    });
    for (const e of decoded.events) {
      events += 1;
      if (e.event.type !== 'AllBlocksCleared') blocks += e.event.block_hashes.length;
    }
  }
  return { list, events, blocks };
}

function cpuMs(run: () => void): number {
  const t0 = process.cpuUsage();
  run();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** The JS heap and the typed arrays' buffers (the ghost list's columns and ids live there). */
const heapNow = (): number => heapMb(2);

interface AnalysisRound {
  events: number;
  blocks: number;
  /** CPU of the measured pass (the second: the first warms the JIT up). */
  ms: number;
  /** The analysis': its report's CPU and figures. */
  reportMs?: number;
  figures?: string;
}

/** One round, in a child: the model (variant 0) or the analysis (1) applying the records twice. */
export function analysisRound(variant: number): AnalysisRound {
  const { list, events, blocks } = records();
  const pass = (): { ms: number; a: CacheAnalysis | null } => {
    if (variant === 0) {
      const m = new CacheModel();
      return { ms: cpuMs(() => list.forEach((r) => m.apply(r))), a: null };
    }
    const a = new CacheAnalysis();
    return { ms: cpuMs(() => list.forEach((r) => a.apply(r))), a };
  };
  pass();
  const { ms, a } = pass();
  if (a === null) return { events, blocks, ms };
  let figures = '';
  const reportMs = cpuMs(() => {
    const rep = a.report();
    figures = `${rep.totals.newStores} new stores, ${rep.totals.announcedHits} hits, ${rep.totals.restores} re-stores (${rep.totals.thrashRestores} thrash), ${rep.crossSource.duplicateStores} duplicate stores`;
  });
  return { events, blocks, ms, reportMs, figures };
}

/** CPU per event of the analysis, as a ratio to the model on the same records. */
export async function runAnalysisBench(): Promise<BenchResult> {
  const [models, analyses] = (await childRounds<AnalysisRound>('analysis', 2, ROUNDS)) as [
    AnalysisRound[],
    AnalysisRound[],
  ];
  const model = median(models.map((r) => r.ms));
  const analysis = median(analyses.map((r) => r.ms));
  const { events, blocks, reportMs = 0, figures = '' } = analyses[0] as AnalysisRound;
  const roundsOf = (xs: AnalysisRound[]): string => xs.map((r) => r.ms.toFixed(0)).join(' / ');
  const ns = (ms: number): string => `${((ms * 1e6) / events).toFixed(0)} ns/event`;
  return {
    title: `Analysis: CPU per event against the model, ${BATCHES} batches of two ranks (median of ${ROUNDS} rounds, each in a process of its own)`,
    rows: [
      ['batches / events / blocks', `${BATCHES} / ${events} / ${blocks}`],
      ['model (baseline)', `${model.toFixed(0)} ms, ${ns(model)} (rounds ${roundsOf(models)})`],
      ['analysis', `${analysis.toFixed(0)} ms, ${ns(analysis)} (rounds ${roundsOf(analyses)})`],
      // The analysis' work is per block (each a lookup in R, G and the holdings).
      [
        'analysis per block',
        `${((analysis * 1e6) / blocks).toFixed(0)} ns/block (stored or removed)`,
      ],
      ['one report()', `${reportMs.toFixed(1)} ms`],
      ['figures', figures],
    ],
    ratio: analysis / model,
    budget: 1.0,
  };
}

/** Heap of a 1,000,000-entry ghost list, as a ratio to a Map of the same hashes to removal times. */
export async function runGhostMemoryBench(): Promise<BenchResult> {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with node --expose-gc');
  // The hash strings exist once, outside both measurements (the events hold them anyway). u64s,
  // as an engine's hashes are (a product past 2^64 made most of them 21 to 25 digits, which the
  // id table keeps as text).
  const keys = Array.from({ length: GHOSTS }, (_, i) =>
    BigInt.asUintN(64, BigInt(i) * 0x9e3779b97f4a7c15n + 12345n).toString(),
  );
  const before = heapNow();
  let map: Map<string, number> | null = new Map();
  for (let i = 0; i < GHOSTS; i++) map.set(keys[i]!, 1_767_225_600 + i / 1000);
  const mapMb = heapNow() - before;
  const mapSize = map.size;
  map = null;
  const base = heapNow();
  // G is keyed by the interner's ids, and a ghosted hash keeps its id there: both are measured,
  // as the analysis has them for hashes no source holds any more.
  let ids: Holdings | null = new Holdings();
  let ghosts: GhostList | null = new GhostList(ids);
  let t = 0;
  const ms = cpuMs(() => {
    for (let i = 0; i < GHOSTS; i++) ghosts!.add(ids!.intern(keys[i]!), 1_767_225_600 + i / 1000);
  });
  const ghostMb = heapNow() - base;
  const probe = cpuMs(() => {
    for (let i = 0; i < GHOSTS; i += 10) t += ghosts!.restore(ids!.find(keys[i]!))?.distance ?? 0;
  });
  const exact = !ghosts.estimate;
  ghosts = null;
  ids = null;
  return {
    title: `Ghost list memory: ${GHOSTS.toLocaleString('en-US')} entries (exact) against a plain Map`,
    rows: [
      ['Map<hash, removal ts> (baseline)', `${mapMb.toFixed(1)} MB for ${mapSize} entries`],
      [
        'GhostList + its ids in Holdings (Fenwick over removal order)',
        `${ghostMb.toFixed(1)} MB, ${((ghostMb * 2 ** 20) / GHOSTS).toFixed(0)} bytes/entry, exact: ${exact}`,
      ],
      ['1,000,000 removals', `${ms.toFixed(0)} ms`],
      ['100,000 re-stores with their distance', `${probe.toFixed(0)} ms (sum of d ${t})`],
    ],
    ratio: ghostMb / mapMb,
    budget: 1.5,
  };
}
