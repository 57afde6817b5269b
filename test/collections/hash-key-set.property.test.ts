// The hot prefixes' set of hash keys against a plain Set: decimals (u64 and past), text keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashKeySet } from '../../electron/collections/hash-key-set';

const key = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString()),
  fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map((n) => n.toString()),
  // A small range repeats keys often (adds of a key held already).
  fc.integer({ min: 0, max: 300 }).map((n) => `${n}`),
  fc.constantFrom('0', '007', '-5', 'beef', '', '123456789012345678901'),
);

describe('hash key set', () => {
  it('holds what a Set holds, across growth', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 3000 }),
        fc.array(key, { maxLength: 50 }),
        (adds, probes) => {
          const set = new HashKeySet();
          const plain = new Set<string>();
          for (const k of adds) {
            const added = set.add(k);
            if (added !== !plain.has(k)) expect(added).toBe(!plain.has(k));
            plain.add(k);
          }
          expect(set.size).toBe(plain.size);
          expect([...set].sort()).toEqual([...plain].sort());
          for (const k of [...probes, ...adds.slice(0, 50)]) expect(set.has(k)).toBe(plain.has(k));
          expect([...new HashKeySet(set)].sort()).toEqual([...plain].sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});
