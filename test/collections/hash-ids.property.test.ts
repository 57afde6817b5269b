// The analysis' interner against a plain Map on random keys of every form a hash takes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashIds } from '../../electron/collections/hash-ids';

// Canonical decimals of every length up to 20 digits (u64 and past it), leading zeros, signs and
// hex: the first are read as numbers, the rest kept as text; none may be taken for another.
const key = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString()),
  fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map((n) => n.toString()),
  fc.integer({ min: 0, max: 40 }).map((n) => `${n}`),
  fc.integer({ min: 0, max: 40 }).map((n) => `0${n}`),
  fc.bigInt({ min: -(2n ** 63n), max: -1n }).map((n) => n.toString()),
  fc.bigInt({ min: 10n ** 20n, max: 10n ** 22n }).map((n) => n.toString()),
  fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b).toString('hex')),
  fc.constantFrom('', '1e5', '12a', ' 1'),
);

describe('hash ids', () => {
  it('finds, names and forgets keys like a Map, with ids recycled', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ add: fc.boolean(), k: key }), { maxLength: 2000, size: 'max' }),
        (ops) => {
          const ids = new HashIds();
          const m = new Map<string, number>();
          const free: number[] = [];
          let next = 0;
          for (const o of ops) {
            const id = ids.find(o.k);
            if (id !== (m.get(o.k) ?? -1)) expect(id).toBe(m.get(o.k) ?? -1);
            if (o.add && id < 0) {
              const fresh = free.pop() ?? next++;
              ids.set(o.k, fresh);
              m.set(o.k, fresh);
            } else if (!o.add && id >= 0) {
              ids.delete(id);
              m.delete(o.k);
              free.push(id);
            }
          }
          for (const [k, id] of m) {
            expect(ids.find(k)).toBe(id);
            expect(ids.keyOf(id)).toBe(k);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('tells apart decimals that share their last ten digits or their value read as a number', () => {
    const ids = new HashIds();
    const keys = ['1', '01', '10000000001', '1', '20000000001', '18446744073709551615'];
    keys.forEach((k, i) => {
      if (ids.find(k) < 0) ids.set(k, i);
    });
    expect(ids.find('1')).toBe(0);
    expect(ids.find('01')).toBe(1);
    expect(ids.find('10000000001')).toBe(2);
    expect(ids.find('20000000001')).toBe(4);
    expect(ids.keyOf(5)).toBe('18446744073709551615');
    expect(ids.find('18446744073709551616')).toBe(-1);
  });
});
