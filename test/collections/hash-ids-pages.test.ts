// The hash id table past its first page of ids (its per-id values grow a page at a time, never
// copied whole), and the key order it gives without making the keys' texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HASH_IDS_PAGE, HashIds } from '../../electron/collections/hash-ids';

describe('hash ids over several pages', () => {
  it('finds, names and forgets 200,000 keys like a Map, ids recycled across pages', () => {
    const ids = new HashIds();
    const m = new Map<string, number>();
    const n = 3 * HASH_IDS_PAGE + 4321;
    // u64-looking decimals, some hex: every id gets a payload the table must keep beside it.
    const key = (i: number): string =>
      i % 7 === 0 ? `beef${i.toString(16)}` : `${BigInt(i) * 2654435761n + 17n ** 13n}`;
    for (let i = 0; i < n; i++) {
      ids.set(key(i), i);
      ids.setPayload(i, i * 3);
      m.set(key(i), i);
    }
    // Forget every third key, then give the freed ids to new keys.
    const freed: number[] = [];
    for (let i = 0; i < n; i += 3) {
      ids.delete(i);
      m.delete(key(i));
      freed.push(i);
    }
    for (const [j, id] of freed.entries()) {
      const k = `${10n ** 19n + BigInt(j)}`;
      expect(ids.find(k)).toBe(-1);
      ids.set(k, id);
      ids.setPayload(id, 2 ** 32 - 1 - id);
      m.set(k, id);
    }
    for (const [k, id] of m) {
      expect(ids.find(k)).toBe(id);
      expect(ids.keyOf(id)).toBe(k);
    }
    expect(ids.payload(n - 2)).toBe((n - 2) * 3);
    expect(ids.payload(freed[5] as number)).toBe(2 ** 32 - 1 - (freed[5] as number));
    for (let i = 0; i < n; i += 3) expect(ids.find(key(i))).toBe(-1);
  });

  it('reads back the parts of a decimal key and says a text key has none', () => {
    const ids = new HashIds();
    ids.set('18446744073709551615', 0);
    ids.set('7', 1);
    ids.set('ab12', 2);
    const p = { hi: 0, lo: 0 };
    expect(ids.keyParts(0, p)).toBe(true);
    expect(p).toEqual({ hi: 1844674407, lo: 3709551615 });
    expect(ids.keyParts(1, p)).toBe(true);
    expect(p).toEqual({ hi: 0, lo: 7 });
    expect(ids.keyParts(2, p)).toBe(false);
  });

  it('keeps a 20-digit decimal past u64 (its hi past 32 bits) as text, found by its parts too', () => {
    const ids = new HashIds();
    const big = '99999999999999999999';
    const edge = '42949672950000000000'; // hi = 2^32 - 1, the first hi kept as text
    const below = '42949672940000000000'; // hi = 2^32 - 2, kept as parts
    [big, edge, below].forEach((k, i) => ids.set(k, i));
    const p = { hi: 0, lo: 0 };
    expect(ids.keyParts(0, p)).toBe(false);
    expect(ids.keyParts(1, p)).toBe(false);
    expect(ids.keyParts(2, p)).toBe(true);
    expect(p).toEqual({ hi: 2 ** 32 - 2, lo: 0 });
    expect([big, edge, below].map((k) => ids.find(k))).toEqual([0, 1, 2]);
    expect(ids.findParts(9999999999, 9999999999)).toBe(0);
    expect(ids.findParts(2 ** 32 - 1, 0)).toBe(1);
    expect(ids.keyOf(0)).toBe(big);
    ids.delete(0);
    expect(ids.find(big)).toBe(-1);
    expect(ids.findParts(9999999999, 9999999999)).toBe(-1);
  });
});

describe('hash ids compare keys', () => {
  const key = fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString()),
    fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map((n) => n.toString()),
    fc.integer({ min: 0, max: 10_000 }).map((n) => `${n}`),
    // Prefixes and zero-padded tails of each other: the cases that order by length.
    fc.constantFrom('1', '10', '100', '1000000000', '10000000000', '10000000001', '9', '99999'),
    fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b).toString('hex')),
    fc.constantFrom('', '-5', '0a', 'zz'),
  );

  it('in the order of their texts, decimals without making the text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 2, maxLength: 60 }), (keys) => {
        const ids = new HashIds();
        keys.forEach((k, i) => ids.set(k, i));
        for (let a = 0; a < keys.length; a++)
          for (let b = 0; b < keys.length; b++) {
            const ka = keys[a] as string;
            const kb = keys[b] as string;
            expect(Math.sign(ids.compareKeys(a, b))).toBe(ka < kb ? -1 : ka > kb ? 1 : 0);
          }
      }),
      { numRuns: 200 },
    );
  });
});
