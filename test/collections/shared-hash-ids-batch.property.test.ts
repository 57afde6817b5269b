// A batch's look-up all at once (SharedHashIds.internAll) against intern() one key after another, on
// batches of every form a hash takes, keys repeated within a batch and across batches, with sids
// freed between batches (ids recycled) and the table grown in the middle of a batch.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_ID, SharedHashIds } from '../../electron/collections/shared-hash-ids';
import { keyPartsInto } from '../../electron/collections/hash-ids';

const key = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString()),
  fc.integer({ min: 0, max: 60 }).map((n) => `${n}`),
  fc.integer({ min: 0, max: 9 }).map((n) => `0${n}`),
  fc.bigInt({ min: 10n ** 20n, max: 10n ** 21n }).map((n) => n.toString()),
  fc.uint8Array({ minLength: 1, maxLength: 2 }).map((b) => Buffer.from(b).toString('hex')),
);
// Past FIND_ALL_KEYS too: a key of one chunk named again in the next.
const batch = fc.array(fc.option(key, { nil: null, freq: 8 }), { maxLength: 700 });

/** Every batch through both tables; the forest keeps the sids named `keep` of each batch. */
function run(batches: (string | null)[][], keep: boolean[]): void {
  const all = new SharedHashIds();
  const one = new SharedHashIds();
  batches.forEach((keys, b) => {
    const got = new Int32Array(keys.length + 3).fill(-7);
    const tail = got.subarray(keys.length);
    all.hold();
    one.hold();
    const his = new Float64Array(keys.length);
    const los = new Float64Array(keys.length);
    keys.forEach((k, i) => keyPartsInto(k, his, los, i));
    all.internAll(his, los, keys, got, keys.length);
    keys.forEach((k, i) => {
      const want = k === null ? NO_ID : one.intern(k);
      if (got[i] !== want) expect([b, i, k, got[i]]).toEqual([b, i, k, want]);
      if (k !== null) expect(all.keyOf(got[i] as number)).toBe(k);
      // Kept by the forest or not: the sids left without an owner go at settle().
      if (k !== null && keep[(b + i) % keep.length]) {
        all.setForestId(got[i] as number, i);
        one.setForestId(want, i);
      }
    });
    expect([...tail]).toEqual([-7, -7, -7]);
    all.settle();
    one.settle();
    expect(all.live).toBe(one.live);
  });
}

describe('shared hash ids, a batch at once', () => {
  it('gives every key the sid intern() gives it, a key twice in a batch one sid', () => {
    fc.assert(
      fc.property(
        fc.array(batch, { maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        run,
      ),
      { numRuns: 60 },
    );
  });

  it('grows the table in the middle of a batch and still finds the batch’s earlier keys again', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `${1_000_000_007 * (i % 2500) + 13}`);
    run([keys, keys.slice(100, 4000).reverse(), [null, ...keys.slice(0, 10)]], [true, false, true]);
  });
});
