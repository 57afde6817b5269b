// The holder bit sets of the analysis (any number of sources, slots reused after a source goes)
// against a plain Map of Sets, and what a source that takes a freed slot inherits: nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { Holdings } from '../../electron/analysis/holdings';
import { batch, holdersOf, stored } from './helpers';

const HASHES = 12;

const opArb = fc.oneof(
  { weight: 1, arbitrary: fc.record({ k: fc.constant('join' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('leave' as const), s: fc.nat() }) },
  {
    weight: 8,
    arbitrary: fc.record({
      k: fc.constantFrom('add' as const, 'remove' as const),
      s: fc.nat(),
      h: fc.integer({ min: 0, max: HASHES - 1 }),
    }),
  },
);

describe('holders of a hash as bits, for any number of sources', () => {
  it('agrees with a Map of Sets on holders, pairs, shared and duplicate counts across 70+ sources that come and go', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 30, max: 70 }),
        fc.array(opArb, { maxLength: 400 }),
        (start, ops) => {
          const h = new Holdings();
          const model = new Map<number, Set<number>>();
          const live: number[] = [];
          const join = (): void => {
            const slot = h.join();
            // The lowest free slot: a source that went leaves a gap the next one fills.
            let expected = 0;
            while (live.includes(expected)) expected += 1;
            expect(slot).toBe(expected);
            live.push(slot);
          };
          for (let i = 0; i < start; i += 1) join();
          const ids = Array.from({ length: HASHES }, (_, i) => h.intern(`h${i}`));
          // Each id is kept by one ghost reference, so it is never recycled while nobody holds it.
          for (const id of ids) h.ghostIn(id);
          for (const op of ops) {
            if (op.k === 'join') {
              join();
              continue;
            }
            if (live.length === 0) continue;
            const slot = live[op.s % live.length] as number;
            if (op.k === 'leave') {
              // The analysis clears a source's R before it leaves: it holds nothing by then.
              for (const id of ids) if (model.get(id)?.delete(slot)) h.remove(id, slot);
              h.leave(slot);
              live.splice(live.indexOf(slot), 1);
              continue;
            }
            const id = ids[op.h] as number;
            const set = model.get(id) ?? new Set<number>();
            model.set(id, set);
            if (op.k === 'add' && !set.has(slot)) {
              h.add(id, slot);
              set.add(slot);
            } else if (op.k === 'remove') {
              h.remove(id, slot);
              set.delete(slot);
            }
          }
          // One comparison of everything (an expect per cell costs more than the Holdings).
          const got: unknown[] = [h.sharedNow, h.duplicateNow];
          let shared = 0;
          let duplicates = 0;
          const want: unknown[] = [];
          for (const id of ids) {
            const set = model.get(id) ?? new Set<number>();
            got.push(holdersOf(h, id));
            want.push([...set].sort((x, y) => x - y));
            if (set.size >= 2) shared += 1;
            if (set.size >= 1) duplicates += set.size - 1;
            for (const s of live) {
              got.push(h.heldBy(id, s), h.heldByOther(id, s));
              want.push(
                set.has(s),
                [...set].some((t) => t !== s),
              );
            }
          }
          for (const x of live)
            for (const y of live) {
              if (x === y) continue;
              got.push(h.overlap(x, y));
              want.push(ids.filter((id) => model.get(id)?.has(x) && model.get(id)?.has(y)).length);
            }
          expect(got).toEqual([shared, duplicates, ...want]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives a source that takes a removed one’s slot none of its holdings', () => {
    const a = new CacheAnalysis();
    // 40 sources hold x and y (the 35 to be removed z too): every store past the first source's
    // is a duplicate.
    for (let i = 0; i < 40; i += 1)
      a.apply(batch(`old${i}`, 1, [stored(i < 35 ? ['x', 'y', 'z'] : ['x', 'y'])]));
    for (let i = 0; i < 35; i += 1) a.removeSource(`old${i}`);
    // 35 new sources take the 35 freed slots, each storing x only.
    for (let i = 0; i < 35; i += 1) a.apply(batch(`new${i}`, 2, [stored(['x'])]));
    const r = a.report().crossSource;
    // old35..old39 made 2 duplicate stores each, every new source one (five old ones hold x).
    expect(r.duplicateStores).toBe(5 * 2 + 35);
    expect(r.sharedBlocksNow).toBe(2);
    // x: 40 holders, y: the 5 old ones.
    expect(r.duplicateBlocksNow).toBe(39 + 4);
    const cell = (p: string, q: string): number | undefined =>
      r.overlap.find((c) => c.sourceA === p && c.sourceB === q)?.blocks;
    expect(cell('old35', 'old36')).toBe(2);
    expect(cell('old35', 'new0')).toBe(1);
    expect(cell('new0', 'new1')).toBe(1);
    // z was held by the removed sources only, whose slots the new ones took: no duplicate now.
    a.apply(batch('new0', 3, [stored(['z'])]));
    expect(a.report().crossSource.duplicateStores).toBe(45);
  });
});
