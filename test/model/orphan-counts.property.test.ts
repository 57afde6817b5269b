// The forest's counts of children under unknown parents, keyed like the hash id table (a decimal
// parent found by its two numbers, no string kept), against a plain Map of texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDecimalKey } from '../../electron/collections/hash-ids';
import { OrphanCounts } from '../../electron/model/orphan-counts';

const parent = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map((n) => `${18446744073709551615n - BigInt(n) * 104729n}`),
  fc.integer({ min: 0, max: 20 }).map((n) => `${n}`),
  fc.integer({ min: 0, max: 5 }).map((n) => `beef${n}`),
);
const op = fc.record({
  k: fc.constantFrom('add', 'addParts', 'take', 'get'),
  parent,
  d: fc.integer({ min: -2, max: 3 }),
});

describe('orphan counts', () => {
  it('count, take and drop at zero like a Map of texts, by text or by parts', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 500 }), (ops) => {
        const counts = new OrphanCounts();
        const m = new Map<string, number>();
        const parts = { hi: 0, lo: 0 };
        const add = (key: string, d: number) => {
          const n = (m.get(key) ?? 0) + d;
          if (m.has(key) ? n > 0 : d > 0) m.set(key, m.has(key) ? n : d);
          else m.delete(key);
        };
        for (const o of ops) {
          if (o.k === 'add') {
            counts.add(o.parent, o.d);
            add(o.parent, o.d);
          } else if (o.k === 'addParts' && parseDecimalKey(o.parent, parts)) {
            counts.addParts(parts.hi, parts.lo, o.d);
            add(o.parent, o.d);
          } else if (o.k === 'take') {
            expect(counts.take(o.parent)).toBe(m.get(o.parent) ?? 0);
            m.delete(o.parent);
          }
          expect(counts.get(o.parent)).toBe(m.get(o.parent) ?? 0);
          expect(counts.size).toBe(m.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});
