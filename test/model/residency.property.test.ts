import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { NodeTable, NONE } from '../../electron/model/node-table';
import { ResidentIdSlot, slotBit } from '../../electron/model/resident-id-slot';
import type { Count } from '../../electron/model/residency';
import { batch, cleared, removed, stored } from './helpers';

const op = fc.oneof(
  fc.record({
    t: fc.constant('store' as const),
    src: fc.constantFrom('a', 'b'),
    med: fc.constantFrom('GPU', 'CPU', null),
    hs: fc.array(fc.nat(12), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    t: fc.constant('remove' as const),
    src: fc.constantFrom('a', 'b'),
    med: fc.constantFrom('GPU', 'CPU', null),
    hs: fc.array(fc.nat(12), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ t: fc.constant('clear' as const), src: fc.constantFrom('a', 'b') }),
);

describe('residency', () => {
  it('matches a naive Set-per-(source, medium) reference for random store/remove/clear sequences', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const m = new CacheModel({ evictedCap: 5, ringSize: 100 });
        const ref = new Map<string, Set<string>>();
        let storedN = 0;
        let removedN = 0;
        let ts = 0;
        for (const o of ops) {
          ts += 0.4;
          if (o.t === 'clear') {
            for (const key of ref.keys()) if (key.startsWith(`${o.src}|`)) ref.delete(key);
            m.apply(batch([cleared(o.src, ts)]));
            continue;
          }
          const key = `${o.src}|${o.med ?? 'unspecified'}`;
          const set = ref.get(key) ?? new Set<string>();
          ref.set(key, set);
          const hs = o.hs.map(String);
          if (o.t === 'store') {
            storedN += hs.length;
            hs.forEach((h) => set.add(h));
            m.apply(batch([stored(o.src, ts, hs, null, o.med)]));
          } else {
            removedN += hs.length;
            hs.forEach((h) => set.delete(h));
            m.apply(batch([removed(o.src, ts, hs, o.med)]));
          }
        }
        const total = [...ref.values()].reduce((a, s) => a + s.size, 0);
        const k = m.kpis();
        expect(k.residentBlocks).toBe(total);
        expect(k.storedBlocks).toBe(storedN);
        expect(k.removedBlocks).toBe(removedN);
        for (const src of ['a', 'b']) {
          const want = [...ref]
            .filter(([key]) => key.startsWith(`${src}|`))
            .reduce((a, [, s]) => a + s.size, 0);
          expect(m.sourceStats(src).residentBlocks).toBe(want);
        }
        // Every block held somewhere is known to the forest and marked resident.
        const held = new Set([...ref.values()].flatMap((s) => [...s]));
        for (const h of held) expect(m.block(h)?.holders).toBeGreaterThan(0);
        for (const [h, node] of m.blocks()) if (!held.has(h)) expect(node.holders).toBe(0);
        const last = m.series({ rangeSec: null }).points.at(-1);
        if (last) expect(last.resident.reduce((a, b) => a + b, 0)).toBe(total);
      }),
      { numRuns: 300 },
    );
  });
});

describe('resident id slots', () => {
  it('give their members back in a Set’s order (each at its latest add), through compactions, with and without a bit', () => {
    const ops = fc.array(
      fc.oneof(
        { weight: 30, arbitrary: fc.record({ add: fc.boolean(), id: fc.nat(40) }) },
        { weight: 1, arbitrary: fc.constant('take' as const) },
      ),
      { maxLength: 3000, size: 'max' },
    );
    fc.assert(
      fc.property(ops, fc.boolean(), (list, withBit) => {
        const table = new NodeTable();
        for (let i = 0; i <= 40; i += 1) table.alloc(0, NONE, 16);
        const n = (): Count => ({ n: 0 });
        const total = n();
        // A slack of 4 stale log entries: compactions happen between the takes.
        const slot = new ResidentIdSlot(total, n(), n(), table, withBit ? slotBit(3) : 0, 4);
        const ref = new Set<number>();
        for (const o of list) {
          if (o === 'take') {
            expect([...slot.takeAll()]).toEqual([...ref]);
            ref.clear();
            continue;
          }
          // expect() only on a mismatch: thousands of operations a run.
          const got = o.add ? slot.add(o.id) : slot.delete(o.id);
          const want = o.add ? !ref.has(o.id) && !!ref.add(o.id) : ref.delete(o.id);
          if (got !== want || slot.size !== ref.size || total.n !== ref.size)
            expect([got, slot.size, total.n]).toEqual([want, ref.size, ref.size]);
        }
        for (let id = 0; id <= 40; id += 1) expect(slot.has(id)).toBe(ref.has(id));
        expect([...slot.takeAll()]).toEqual([...ref]);
      }),
      { numRuns: 40 },
    );
  });
});
