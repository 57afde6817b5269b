// Model throughput and query cost on a busy-engine workload (run with `npm run bench`).
import { bench, describe } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import type { EventRecord } from '../../shared/events';
import { removed, stored } from './helpers';

/** 64 conversations of 16-block turns over an LRU pool of 100k blocks: `blocks` blocks stored. */
function busyModel(blocks: number): CacheModel {
  const m = new CacheModel();
  const pool: string[] = [];
  const tails: string[] = [];
  let head = 0;
  let h = 10n ** 19n;
  for (let step = 0, n = 0; n < blocks; step += 1, n += 16) {
    const hashes = Array.from({ length: 16 }, () => (h += 7919n).toString());
    const conv = step % 64;
    const parent = Math.floor(step / 64) % 40 === 0 ? null : (tails[conv] ?? null);
    tails[conv] = hashes[15] as string;
    const ts = 1_767_225_600 + step * 0.05;
    const batch: EventRecord[] = [stored(`e${step % 2}`, ts, hashes, parent)];
    pool.push(...hashes);
    if (pool.length - head > 100_000) {
      batch.push(removed(`e${step % 2}`, ts, pool.slice(head, pool.length - 100_000)));
      head = pool.length - 100_000;
    }
    m.applyBatch(batch);
  }
  return m;
}

describe('cache model', () => {
  bench(
    'ingest 100k blocks',
    () => {
      busyModel(100_000);
    },
    { iterations: 3 },
  );

  const m = busyModel(300_000);
  bench(
    'chains() over ~300k known blocks (uncached)',
    () => {
      m.forest.version += 1;
      m.chains({ sort: 'depth', desc: true, offset: 0, limit: 100 });
    },
    { iterations: 5 },
  );
  bench('series() whole session', () => {
    m.series({ rangeSec: null });
  });
});
