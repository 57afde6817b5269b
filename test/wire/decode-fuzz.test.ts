// Property tests: decodeBatch never throws, always terminates, and never lets a token id or a
// redacted value out, whatever bytes arrive. Token ids come from 3000000001..3000000999, a range
// no other generated field uses (and above the int32 LoRA id / block size bounds), so any such
// number in the output is a leak.

import { Encoder } from '@msgpack/msgpack';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { withHashTexts } from '../support/hash-parts';

const TOKEN_MIN = 3_000_000_001;
const TOKEN_MAX = 3_000_000_999;
const SECRET = 'zzsecret';
const encoder = new Encoder({ useBigInt64: true });
const enc = (v: unknown): Uint8Array => encoder.encode(v);

/**
 * Event fields the decoder keeps as free text. In a corrupted payload the bytes of a redacted
 * value can shift into one of them (a flipped map header turns a cache_salt into a lora_name):
 * the decoder cannot know, so for mutated input only these fields may hold the marker (the
 * fingerprint's unknown field names too: a shifted value can read as a map key).
 */
const KEPT_TEXT = new Set([
  'lora_name',
  'medium',
  'kv_cache_spec_kind',
  'locality',
  'ownership',
  'unknownFields',
]);

/** The token-range numbers and redacted values found in a decoder result's JSON. */
function leaks(result: unknown, keptTextMayHoldMarker = false): string[] {
  const json = JSON.stringify(result, (key, v: unknown) =>
    keptTextMayHoldMarker && KEPT_TEXT.has(key) && (typeof v === 'string' || Array.isArray(v))
      ? '<kept text>'
      : v,
  );
  const found = (json.match(/\b3000000\d{3}\b/g) ?? []).filter((n) => {
    const v = Number(n);
    return v >= TOKEN_MIN && v <= TOKEN_MAX;
  });
  if (json.includes(SECRET)) found.push(SECRET);
  return found;
}

const token = fc.integer({ min: TOKEN_MIN, max: TOKEN_MAX });
const tokens = fc.array(token, { minLength: 0, maxLength: 24 });
const hash = fc.oneof(
  fc
    .bigInt({ min: 0n, max: 2n ** 64n - 1n })
    .filter((h) => h < BigInt(TOKEN_MIN) || h > BigInt(TOKEN_MAX)),
  fc.integer({ min: 0, max: 100_000 }),
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
);
const hashes = fc.array(hash, { minLength: 0, maxLength: 6 });
const parent = fc.option(hash, { nil: null });
const medium = fc.constantFrom('GPU', 'CPU', null);
const secret = fc.string({ maxLength: 6 }).map((s) => `${SECRET}${s.replace(/[^ -~]/g, '')}`);
const extraKeys = fc.option(
  fc.array(fc.option(fc.array(secret, { maxLength: 2 }), { nil: null }), { maxLength: 4 }),
  {
    nil: null,
  },
);

const positionalStored = fc
  .tuple(
    hashes,
    parent,
    tokens,
    fc.integer({ min: 1, max: 64 }),
    fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
    medium,
    fc.oneof(fc.constantFrom('my-lora', null), fc.record({ cache_salt: secret })),
    extraKeys,
    fc.option(fc.nat(3), { nil: null }),
    fc.constantFrom('full_attention', null),
    fc.option(fc.integer({ min: 1, max: 8192 }), { nil: null }),
    fc.integer({ min: 5, max: 12 }),
  )
  .map(([h, p, t, bs, lid, m, ln, ek, g, k, w, len]) =>
    ['BlockStored', h, p, t, bs, lid, m, ln, ek, g, k, w].slice(0, len),
  );
const mapStored = fc
  .record(
    {
      block_hashes: hashes,
      parent_block_hash: parent,
      token_ids: tokens,
      block_size: fc.integer({ min: 1, max: 64 }),
      lora_id: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
      medium,
      extra_keys: extraKeys,
      session_id: secret,
      metadata: fc.record({ cache_salt: secret }),
      locality: fc.constantFrom('local', 'remote'),
    },
    { requiredKeys: ['block_hashes', 'token_ids', 'block_size'] },
  )
  .map((e) => ({ type: 'BlockStored', ...e }));
const removed = fc.oneof(
  fc.tuple(hashes, medium).map(([h, m]) => ['BlockRemoved', h, m]),
  fc.record({ block_hashes: hashes, medium }).map((e) => ({ type: 'BlockRemoved', ...e })),
);
const cleared = fc.constantFrom(['AllBlocksCleared'], { type: 'AllBlocksCleared' });
const event = fc.oneof(
  { weight: 3, arbitrary: positionalStored },
  { weight: 3, arbitrary: mapStored },
  removed,
  cleared,
);
const batch = fc
  .tuple(
    fc.double({ min: 0, max: 2e9, noNaN: true }),
    fc.array(event, { minLength: 1, maxLength: 5 }),
    fc.option(fc.nat(7), { nil: null }),
    fc.boolean(),
  )
  .map(([ts, events, rank, asMap]) => ({
    value: asMap ? { ts, events, data_parallel_rank: rank } : [ts, events, rank],
    events: events.length,
  }));

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'append'; bytes: Uint8Array }
  | { kind: 'splice'; at: number; remove: number; value: Uint8Array };
const spliceValue = fc
  .oneof(
    fc.integer({ min: -1000, max: 1000 }),
    fc.string({ maxLength: 8 }),
    fc.constant(null),
    fc.array(fc.nat(300), { maxLength: 4 }),
    fc.constant({ k: 1 }),
    fc.constant(['BlockStored']),
  )
  .map(enc);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('append' as const),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }),
  }),
  fc.record({
    kind: fc.constant('splice' as const),
    at: fc.nat(),
    remove: fc.nat(12),
    value: spliceValue,
  }),
);

function mutate(payload: Uint8Array, m: Mutation): Uint8Array {
  const out = Uint8Array.from(payload);
  const at = 'at' in m ? m.at % Math.max(1, payload.length) : 0;
  switch (m.kind) {
    case 'flip':
      out[at] = (out[at] as number) ^ (1 << m.bit);
      return out;
    case 'truncate':
      return out.subarray(0, at);
    case 'append':
      return Uint8Array.from([...out, ...m.bytes]);
    case 'splice':
      return Uint8Array.from([...out.subarray(0, at), ...m.value, ...out.subarray(at + m.remove)]);
  }
}

function checkOutcome(payload: Uint8Array, mutated = false): void {
  const r = decodeBatch(payload);
  // The live path's mode (u64 hashes as numbers) reads any bytes as the text mode does.
  expect(withHashTexts(decodeBatch(payload, { hashParts: true }))).toEqual(r);
  expect(leaks(r, mutated)).toEqual([]);
  if (!r.ok) {
    expect(r.bytes).toBe(payload.byteLength);
    expect(r.error).toMatch(/^(MsgpackError|SchemaError): \S/);
  } else {
    for (const e of r.errors) expect(e.error).toMatch(/^(SchemaError|EventTimeError): \S/);
    const indexes = [...r.events.map((e) => e.idx), ...r.errors.map((e) => e.idx)].sort(
      (a, b) => a - b,
    );
    expect(indexes).toEqual(indexes.map((_, i) => i));
  }
}

describe('decodeBatch under arbitrary input', () => {
  it('decodes every generated batch fully, counting tokens and leaking none', () => {
    fc.assert(
      fc.property(batch, ({ value, events }) => {
        const payload = enc(value);
        const r = decodeBatch(payload);
        if (!r.ok) throw new Error(r.error);
        expect(r.errors).toEqual([]);
        expect(r.events).toHaveLength(events);
        expect(leaks(r)).toEqual([]);
        const parts = decodeBatch(payload, { hashParts: true });
        expect(leaks(parts)).toEqual([]);
        expect(withHashTexts(parts)).toEqual(r);
      }),
      { numRuns: 1500 },
    );
  });

  it('never throws and never leaks on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => checkOutcome(bytes)),
      { numRuns: 3000 },
    );
  });

  it('never throws and never leaks on random bytes after a batch-like prefix', () => {
    const prefixes = [
      Uint8Array.of(0x93, 0xcb, 0x41, 0xda, 0, 0, 0, 0, 0, 0),
      Uint8Array.of(0x83, 0xa2, 0x74, 0x73),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 300 }), (prefix, rest) =>
        checkOutcome(Uint8Array.from([...prefix, ...rest])),
      ),
      { numRuns: 2000 },
    );
  });

  it('names no length read from a corrupt payload: it may be the bytes of a token id', () => {
    // fast-check's seed 22214603: a str32 header spliced in front of a token id, whose four bytes
    // then read as the string's declared length.
    const value = {
      ts: 1,
      events: [['BlockStored', [], 256, [TOKEN_MIN, TOKEN_MIN], 1]],
      data_parallel_rank: null,
    };
    const payload = enc(value);
    const at = payload.indexOf(0xce); // the first token's uint32 header
    const corrupt = Uint8Array.from([
      ...payload.subarray(0, at),
      0xdb,
      ...payload.subarray(at + 1),
    ]);
    const r = decodeBatch(corrupt);
    expect(r.ok).toBe(false);
    expect(leaks(r)).toEqual([]);
  });

  it('never throws and never leaks on mutated valid batches', () => {
    fc.assert(
      fc.property(batch, fc.array(mutation, { minLength: 1, maxLength: 3 }), ({ value }, ms) => {
        let payload = enc(value);
        for (const m of ms) payload = mutate(payload, m);
        checkOutcome(payload, true);
      }),
      { numRuns: 5000 },
    );
  });
});
