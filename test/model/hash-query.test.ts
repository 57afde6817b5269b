// A hash query finds what the search box promises: a decimal prefix of an integer hash, a hex
// prefix of its u64 (as hex(h) writes it, or zero-padded to 16 digits), a hex prefix of a byte
// hash, and nothing else.
import { describe, expect, it } from 'vitest';
import { hashMatcher } from '../../electron/model/hash-query';
import { isIntHashKey as isWireIntKey } from '../../electron/wire/hash-key';
import { isIntHashKey } from '../../shared/int-hash-key';

const BIG = 12345678901234567890n; // hex ab54a98ceb1f0ad2
const PADDED = 0x00ab000000000001n; // hex(h) "ab000000000001", zero-padded "00ab000000000001"
const BYTES = 'ab54' + 'f'.repeat(60);

const matches = (q: string, key: string): boolean => hashMatcher(q)?.(key) ?? false;

describe('hash queries', () => {
  it('finds an integer hash by a hex prefix of its u64, with or without 0x, any case', () => {
    const key = BIG.toString(10);
    for (const q of ['ab54', '0xab54', 'AB54A98C', '0xab54a98ceb1f0ad2', 'ab54a98ceb1f0ad2']) {
      expect(matches(q, key), q).toBe(true);
    }
    expect(matches('b54a', key)).toBe(false);
    expect(matches('0xab55', key)).toBe(false);
  });

  it('reads a hex query with a leading zero as the zero-padded 16-digit form', () => {
    const key = PADDED.toString(10);
    expect(matches('00ab', key)).toBe(true);
    expect(matches('ab0000', key)).toBe(true);
    expect(matches('00a', key)).toBe(true);
    expect(matches('0ab', key)).toBe(false);
    expect(matches('00ac', key)).toBe(false);
  });

  it('keeps digits alone decimal, and 0x with digits hex only', () => {
    expect(matches('1234', '12345')).toBe(true);
    // 0x12 is 18, or 0x12.. of any length: never the decimal digits 12...
    expect(matches('0x12', '12345')).toBe(false);
    expect(matches('0x12', '18')).toBe(true);
    expect(matches('0x12', String(0x1234))).toBe(true);
  });

  it('finds a byte hash by a prefix of its hex', () => {
    expect(matches('ab54', BYTES)).toBe(true);
    expect(matches('0xab54', BYTES)).toBe(true);
    expect(matches('ab55', BYTES)).toBe(false);
  });

  it('reads keys as integers exactly as the decoder writes them (shared/int-hash-key)', () => {
    // A short digest of hex digits with a leading zero is a byte hash: the decoder never writes
    // an integer with one, so a hex query matches its text, not a u64 it cannot be.
    expect(matches('0x01', '0123')).toBe(true);
    expect(matches('0x01', '0923')).toBe(false);
    // Twenty digits past 2^64 - 1 are no u64 either (an opaque key, matched as text).
    expect(matches('0x9', '99999999999999999999')).toBe(true);
    for (const key of ['0', '7', '0123', '18446744073709551615', '18446744073709551616', 'ab'])
      expect(isIntHashKey(key), key).toBe(isWireIntKey(key));
  });

  it('agrees with the hex text of random u64s for random hex prefixes', () => {
    let x = 0x9e3779b97f4a7c15n;
    const next = (): bigint => {
      // xorshift64: deterministic, covers every magnitude of the u64 range.
      x ^= (x << 13n) & 0xffffffffffffffffn;
      x ^= x >> 7n;
      x ^= (x << 17n) & 0xffffffffffffffffn;
      return x >> BigInt(Number(x & 63n));
    };
    for (let i = 0; i < 2000; i += 1) {
      const h = next();
      const hex = h.toString(16);
      const padded = hex.padStart(16, '0');
      const from = i % 2 === 0 ? hex : padded;
      const q = `0x${from.slice(0, 1 + (i % from.length))}`;
      const other = next();
      const expected = (v: bigint) => {
        const t = q.slice(2);
        return v.toString(16).startsWith(t) || v.toString(16).padStart(16, '0').startsWith(t);
      };
      expect(matches(q, h.toString(10)), `${q} ${hex}`).toBe(true);
      expect(matches(q, other.toString(10)), `${q} ${other.toString(16)}`).toBe(expected(other));
    }
  });
});
