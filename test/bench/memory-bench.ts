// Memory over a long run: an hour of a busy engine (100 batches/s of event time) through the decoder
// and the model. The heap after the first quarter is the baseline; the end of the hour must not
// have grown past it by more than the budget (what is bounded must stay bounded).
import type { EventRecord } from '../../shared/events';
import { CacheModel } from '../../electron/model/cache-model';
import { encodeBatch } from '../../electron/sim/encode';
import { Workload } from '../../electron/sim/workload';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { batch } from '../model/helpers';
import type { BenchResult } from './bench-result';
import { heapMb } from './heap-mb';

const BATCHES_PER_SEC = 100;
const SECONDS = 3600;

/** The JS heap plus array buffers: the forest keeps its blocks in typed arrays (node-table.ts). */
const heapNow = (): number => heapMb(1);

/** Feeds an hour of workload through decode and model; reports heap at each quarter. */
export async function runMemoryBench(): Promise<BenchResult> {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with node --expose-gc');
  const workload = new Workload({ seed: 7, format: 'map', hash: 'int' });
  const model = new CacheModel();
  const total = BATCHES_PER_SEC * SECONDS;
  const heaps: number[] = [];
  let events = 0;
  let blocks = 0;
  const startHeap = heapNow();
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    const ts = 1_767_225_600 + i / BATCHES_PER_SEC;
    const decoded = decodeBatch(encodeBatch(ts, workload.nextBatch(), 0, 'map'));
    if (!decoded.ok) throw new Error(decoded.error);
    const records: EventRecord[] = decoded.events.map(({ idx, event }) => ({
      source: 'engine',
      seq: i,
      ts,
      dp_rank: decoded.dpRank,
      idx,
      event,
    }));
    for (const r of records)
      if (r.event.type !== 'AllBlocksCleared') blocks += r.event.block_hashes.length;
    events += records.length;
    model.apply(batch(records));
    if ((i + 1) % (total / 4) === 0) heaps.push(heapNow());
    if (i % 10_000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [q1 = 0, q2 = 0, q3 = 0, q4 = 0] = heaps;
  return {
    title: `Memory: one hour of event time at ${BATCHES_PER_SEC} batches/s (decoder + model)`,
    rows: [
      ['batches / events / blocks', `${total} / ${events} / ${blocks}`],
      ['heap + array buffers at start', `${startHeap.toFixed(1)} MB`],
      [
        'heap + array buffers at 15 / 30 / 45 / 60 min',
        `${q1.toFixed(1)} / ${q2.toFixed(1)} / ${q3.toFixed(1)} / ${q4.toFixed(1)} MB`,
      ],
      ['resident blocks at the end', String(model.kpis().residentBlocks)],
      ['wall time', `${seconds.toFixed(1)} s (${Math.round(events / seconds)} events/s)`],
    ],
    ratio: q4 / q1,
    budget: 1.3,
  };
}
