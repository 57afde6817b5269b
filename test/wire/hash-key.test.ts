import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashKeyFromBytes,
  hashKeyFromDecimalText,
  hashKeyFromU64,
  hashKeyKind,
  hashKeyToBigInt,
  isBytesHashKey,
  isIntHashKey,
  isNegativeIntHashKey,
  u64DecimalParts,
} from '../../electron/wire/hash-key';

const split = (v: bigint): [number, number] => [Number(v >> 32n), Number(v & 0xffffffffn)];

describe('hash keys', () => {
  it('writes any u64 in exact decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (v) => {
        expect(hashKeyFromU64(...split(v))).toBe(v.toString());
      }),
      { numRuns: 5000 },
    );
    for (const v of [
      0n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      2n ** 63n,
      2n ** 64n - 1n,
      10n ** 19n,
      10n ** 10n,
    ]) {
      expect(hashKeyFromU64(...split(v))).toBe(v.toString());
    }
  });

  it('reads any u64 as the parts of its decimal (hi * 10^10 + lo), exactly, with no BigInt', () => {
    const parts: number[] = [];
    const check = (v: bigint): void => {
      u64DecimalParts(...split(v), parts, 2);
      expect([parts[2], parts[3]]).toEqual([Number(v / 10n ** 10n), Number(v % 10n ** 10n)]);
    };
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), check), { numRuns: 20000 });
    const edges = [
      0n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n,
      10n ** 10n,
      10n ** 19n,
      2n ** 64n - 1n,
    ];
    for (const v of edges)
      for (const d of [-1n, 0n, 1n]) if (v + d >= 0n && v + d < 2n ** 64n) check(v + d);
    // Near every multiple of 10^10 the quotient's rounding is stepped back: each hi word's.
    for (let hi = 0; hi < 2 ** 32; hi += 9_999_991) {
      const base = BigInt(hi) << 32n;
      const next = (base / 10n ** 10n + 1n) * 10n ** 10n;
      for (const v of [next - 1n, next, next + 1n]) if (v < 2n ** 64n) check(v);
    }
  });

  it('writes bytes in lowercase hex', () => {
    expect(hashKeyFromBytes(Uint8Array.of(0x00, 0xab, 0x0f, 0xff))).toBe('00ab0fff');
    expect(hashKeyFromBytes(Uint8Array.of(1, 2, 3, 4), 1, 3)).toBe('0203');
  });

  it('recognises int keys up to 2^64-1 and nothing beyond', () => {
    expect(isIntHashKey('0')).toBe(true);
    expect(isIntHashKey('18446744073709551615')).toBe(true);
    expect(isIntHashKey('18446744073709551616')).toBe(false);
    expect(isIntHashKey('99999999999999999999')).toBe(false);
    expect(isIntHashKey('01')).toBe(false);
    expect(isIntHashKey('-5')).toBe(false);
    expect(isIntHashKey('ab')).toBe(false);
    expect(isNegativeIntHashKey('-5')).toBe(true);
    expect(isNegativeIntHashKey('-9223372036854775808')).toBe(true);
    expect(isNegativeIntHashKey('-9223372036854775809')).toBe(false);
    expect(isBytesHashKey('ab0f')).toBe(true);
    expect(isBytesHashKey('AB0F')).toBe(false);
  });

  it('tells int keys exactly as the decimal pattern did (any text, digits, near 2^64)', () => {
    const was = (k: string): boolean =>
      /^(0|[1-9][0-9]{0,19})$/.test(k) && (k.length < 20 || k <= '18446744073709551615');
    const digits = fc.stringMatching(/^[0-9]{0,22}$/);
    const nearMax = fc
      .bigInt({ min: 2n ** 64n - 1000n, max: 2n ** 64n + 1000n })
      .map((v) => v.toString());
    fc.assert(
      fc.property(fc.oneof(fc.string(), digits, nearMax), (k) => {
        expect(isIntHashKey(k)).toBe(was(k));
      }),
      { numRuns: 20000 },
    );
    for (const k of ['', '0', '00', '1', '9'.repeat(20), '1'.repeat(21), '1 ', ' 1', '1\n'])
      expect(isIntHashKey(k)).toBe(was(k));
  });

  it('classifies keys and turns int keys back into bigints', () => {
    expect(hashKeyKind('123')).toBe('int');
    expect(hashKeyKind('-123')).toBe('negative-int');
    expect(hashKeyKind('deadbeef')).toBe('bytes');
    expect(hashKeyKind('xyz')).toBeNull();
    expect(hashKeyToBigInt('18446744073709551615')).toBe(2n ** 64n - 1n);
    expect(hashKeyToBigInt('deadbeef')).toBeNull();
  });

  it('normalises the text of a JSON integer losslessly', () => {
    expect(hashKeyFromDecimalText('18446744073709551615')).toBe('18446744073709551615');
    expect(hashKeyFromDecimalText('007')).toBe('7');
    expect(hashKeyFromDecimalText('-0')).toBe('0');
    expect(hashKeyFromDecimalText('-42')).toBe('-42');
    expect(hashKeyFromDecimalText('18446744073709551616')).toBeNull();
    expect(hashKeyFromDecimalText('1.5')).toBeNull();
  });
});
