// The analysis' integer map against a plain Map on random sets, deletes and lookups.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdTable } from '../../electron/collections/id-table';

const op = fc.record({
  kind: fc.constantFrom('set', 'set', 'delete', 'get'),
  // Keys from a small range collide on their probe runs; a few large ones spread them.
  id: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
  value: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
});

/** expect() only on a mismatch: thousands of checks a run stay cheap. */
function same(got: number, want: number): void {
  if (got !== want) expect(got).toBe(want);
}

describe('id table', () => {
  it('holds what a Map holds across growth and backward-shift deletes', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 4000, size: 'max' }), (ops) => {
        const t = new IdTable();
        const m = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            t.set(o.id, o.value);
            m.set(o.id, o.value);
          } else if (o.kind === 'delete') {
            same(t.delete(o.id), m.get(o.id) ?? -1);
            m.delete(o.id);
          } else same(t.get(o.id), m.get(o.id) ?? -1);
          same(t.size, m.size);
        }
        for (const [k, v] of m) expect(t.get(k)).toBe(v);
        const seen = new Map<number, number>();
        t.forEach((k, v) => seen.set(k, v));
        expect(seen).toEqual(m);
      }),
      { numRuns: 40 },
    );
  });

  it('maps every value through a table in place and keeps every key findable', () => {
    const t = new IdTable();
    for (let i = 0; i < 5000; i++) t.set(i * 7, i);
    for (let i = 0; i < 5000; i += 3) t.delete(i * 7);
    const to = Int32Array.from({ length: 5000 }, (_, v) => 4999 - v);
    t.remapValues(to);
    for (let i = 0; i < 5000; i++) expect(t.get(i * 7)).toBe(i % 3 === 0 ? -1 : 4999 - i);
  });

  it('finds every key of a dense run after deleting every other one', () => {
    const t = new IdTable();
    for (let i = 0; i < 50_000; i++) t.set(i, i * 2);
    for (let i = 0; i < 50_000; i += 2) expect(t.delete(i)).toBe(i * 2);
    for (let i = 0; i < 50_000; i++) expect(t.get(i)).toBe(i % 2 === 0 ? -1 : i * 2);
    expect(t.size).toBe(25_000);
    t.clear();
    expect(t.size).toBe(0);
    expect(t.get(1)).toBe(-1);
  });
});
