// A full ghost list samples what it spills by the hash of its key's text: read from the key's
// parts, digit by digit, it must be the same number the text gives (or the estimates would move).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleHash, sampleHashOfParts } from '../../electron/analysis/ghost-list';
import { parseDecimalKey } from '../../electron/collections/hash-ids';

describe('the sample hash of a decimal key', () => {
  it('is the same from its parts as from its text', () => {
    const decimal = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString()),
      fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map((n) => n.toString()),
      fc.integer({ min: 0, max: 99_999 }).map((n) => `${n}`),
      fc.constantFrom('0', '9999999999', '10000000000', '18446744073709551615'),
    );
    fc.assert(
      fc.property(decimal, (k) => {
        const p = { hi: 0, lo: 0 };
        expect(parseDecimalKey(k, p)).toBe(true);
        expect(sampleHashOfParts(p.hi, p.lo)).toBe(sampleHash(k));
      }),
      { numRuns: 5000 },
    );
  });
});
