// A session file of the simulator's traffic for a test: two ranks of one engine, small pools (so
// blocks are evicted and stored again), written with the format's encoder as a recording does.
import { gzipSync } from 'node:zlib';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { encodeBatch } from '../../electron/sim/encode';
import { SharedTraffic, Workload } from '../../electron/sim/workload';
import { decodeBatch } from '../../electron/wire/decode-batch';

/** The gzip bytes of a session of `batches` batches (alternating ranks), seeded by `seed`. */
export function simSessionBytes(batches: number, seed = 7): Buffer {
  const shared = new SharedTraffic();
  const ranks = [0, 1].map(
    (rank) =>
      new Workload({
        seed,
        rank,
        format: 'map',
        hash: 'int',
        gpuBlocks: 512,
        cpuBlocks: 1024,
        reannounce: 0.1,
        stickiness: 0.8,
        shared,
      }),
  );
  const sources = [0, 1].map((r) => ({ id: `engine#${r}`, name: `engine ${r}`, endpoint: '' }));
  const lines = [JSON.stringify(makeHeader('test', new Date(Date.UTC(2026, 0, 1)), sources))];
  for (let i = 0; i < batches; i++) {
    const rank = i % 2;
    const ts = 1_767_225_600 + i / 50;
    const d = decodeBatch(encodeBatch(ts, ranks[rank]!.nextBatch(), rank, 'map'));
    if (!d.ok) throw new Error(d.error);
    for (const { idx, event } of d.events) {
      const rec = {
        source: `engine#${rank}`,
        seq: Math.floor(i / 2),
        ts,
        dp_rank: rank,
        idx,
        event,
      };
      lines.push(encodeRecord({ k: 'event', rec }));
    }
  }
  return gzipSync(`${lines.join('\n')}\n`);
}
