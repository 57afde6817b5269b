import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import type { BlockRemovedEvent, BlockStoredEvent } from '../../shared/events';
import type { DecodeResult } from '../../electron/wire/decode-batch';
import { decodeBatch, describeShape, HASH_INT } from '../../electron/wire/decode-batch';
import { DecimalHashes, hashTexts } from '../../shared/hash-list';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { withHashTexts } from '../support/hash-parts';

const encoder = new Encoder({ useBigInt64: true });
const enc = (value: unknown): Uint8Array => encoder.encode(value);
const TS = 1767225601.5;
const TOKENS = [900000001, 900000002, 900000003, 900000004];

type Ok = Extract<DecodeResult, { ok: true }>;
function ok(r: DecodeResult): Ok {
  if (!r.ok) throw new Error(`expected a decoded batch, got ${r.error}`);
  return r;
}
function bad(r: DecodeResult): Extract<DecodeResult, { ok: false }> {
  if (r.ok) throw new Error('expected the payload to be refused');
  return r;
}
const stored = (r: Ok, i = 0): BlockStoredEvent => r.events[i]?.event as BlockStoredEvent;

const storedMap = (extra: Record<string, unknown> = {}) => ({
  type: 'BlockStored',
  block_hashes: [11n, 12n],
  parent_block_hash: 10n,
  token_ids: TOKENS,
  block_size: 2,
  lora_id: null,
  medium: 'GPU',
  ...extra,
});

describe('decodeBatch: batch encodings', () => {
  it('reads a map batch with data_parallel_rank', () => {
    const r = ok(decodeBatch(enc({ ts: TS, events: [storedMap()], data_parallel_rank: 3 })));
    expect(r.ts).toBe(TS);
    expect(r.dpRank).toBe(3);
    expect(r.shape.batch).toBe('map');
    expect(r.shape.rankField).toBe('data_parallel_rank');
    expect(stored(r).block_hashes).toEqual(['11', '12']);
  });

  it("reads SGLang's attn_dp_rank, whatever the key order", () => {
    const r = ok(decodeBatch(enc({ attn_dp_rank: 1, events: [storedMap()], ts: TS })));
    expect(r.dpRank).toBe(1);
    expect(r.shape.rankField).toBe('attn_dp_rank');
  });

  it('reads a positional batch with the rank omitted as a null rank', () => {
    const r = ok(decodeBatch(enc([TS, [storedMap()]])));
    expect(r.dpRank).toBeNull();
    expect(r.shape.rankField).toBeNull();
    expect(r.shape.batch).toBe('array');
  });

  it('accepts an integer ts and a nil rank', () => {
    const r = ok(decodeBatch(enc([1767225601, [], null])));
    expect(r.ts).toBe(1767225601);
    expect(r.dpRank).toBeNull();
    expect(r.events).toEqual([]);
  });
});

describe('decodeBatch: events', () => {
  it('reads a full positional BlockStored, redacting tokens and extra keys to counts', () => {
    const ev = [
      'BlockStored',
      [1n, 2n, 3n],
      null,
      TOKENS,
      16,
      7,
      'CPU',
      'sql-lora',
      [null, ['mm-secret'], ['salt-x']],
      1,
      'sliding_window',
      4096,
    ];
    const r = ok(decodeBatch(enc([TS, [ev], 0])));
    expect(stored(r)).toEqual({
      type: 'BlockStored',
      block_hashes: ['1', '2', '3'],
      parent_block_hash: null,
      token_count: 4,
      block_size: 16,
      lora_id: 7,
      medium: 'CPU',
      lora_name: 'sql-lora',
      extra_keys_count: 2,
      group_idx: 1,
      kv_cache_spec_kind: 'sliding_window',
      kv_cache_spec_sliding_window: 4096,
      metadata_count: 0,
      session_id_count: 0,
    });
    const json = JSON.stringify(r);
    expect(json).not.toContain('mm-secret');
    expect(json).not.toContain('salt-x');
    expect(json).not.toContain('900000');
  });

  it('fills omitted trailing positional fields with their defaults', () => {
    const r = ok(
      decodeBatch(
        enc([
          TS,
          [['BlockStored', [5n], 4n, TOKENS, 16], ['BlockRemoved', [5n]], ['AllBlocksCleared']],
        ]),
      ),
    );
    expect(stored(r)).toMatchObject({
      lora_id: null,
      medium: null,
      lora_name: null,
      extra_keys_count: 0,
      group_idx: null,
    });
    expect(r.events[1]?.event).toEqual({
      type: 'BlockRemoved',
      block_hashes: ['5'],
      medium: null,
      group_idx: null,
    });
    expect(r.events[2]?.event).toEqual({ type: 'AllBlocksCleared', medium: null });
    expect(r.events.map((e) => e.idx)).toEqual([0, 1, 2]);
  });

  it("tells SGLang's metadata map at position 7 from vLLM's lora_name by type", () => {
    const sglang = [
      'BlockStored',
      [1n],
      null,
      TOKENS,
      16,
      null,
      'GPU',
      { cache_salt: 'tenant-secret' },
    ];
    const vllm = ['BlockStored', [1n], null, TOKENS, 16, 3, 'GPU', 'my-lora'];
    const r = ok(decodeBatch(enc([TS, [sglang, vllm]])));
    expect(stored(r, 0)).toMatchObject({ lora_name: null, metadata_count: 1 });
    expect(stored(r, 1)).toMatchObject({ lora_name: 'my-lora', metadata_count: 0 });
    expect(JSON.stringify(r)).not.toContain('tenant-secret');
    expect(describeShape(r.shape).fields).toContain('metadata');
  });

  it('reads map events in any field order and mixed with positional events', () => {
    const typeLast = { block_hashes: [9n], medium: 'GPU', type: 'BlockRemoved' };
    const r = ok(
      decodeBatch(enc([TS, [storedMap(), ['BlockRemoved', [11n], 'GPU', 0], typeLast], 0])),
    );
    expect(r.events.map((e) => e.event.type)).toEqual([
      'BlockStored',
      'BlockRemoved',
      'BlockRemoved',
    ]);
    expect((r.events[2]?.event as BlockRemovedEvent).block_hashes).toEqual(['9']);
    expect(describeShape(r.shape).events).toEqual(['array', 'map']);
  });

  it('tolerates unknown fields, counts session_id and metadata, and keeps none of their values', () => {
    const ev = storedMap({
      locality: { node: 'rack-7' },
      event_version: 2,
      session_id: 'session-secret',
      metadata: { cache_salt: 'salt-secret', tenant: 'acme-secret' },
      extra_keys: [['mm-1'], null],
    });
    const r = ok(decodeBatch(enc([TS, [ev]])));
    expect(stored(r)).toMatchObject({
      session_id_count: 1,
      metadata_count: 2,
      extra_keys_count: 1,
      token_count: 4,
    });
    const words = describeShape(r.shape);
    expect(words.unknownFields).toEqual(['event_version', 'locality']);
    expect(words.fields).toEqual(
      expect.arrayContaining(['session_id', 'metadata', 'locality', 'event_version']),
    );
    const json = JSON.stringify(r);
    for (const secret of ['session-secret', 'salt-secret', 'acme-secret', 'rack-7', 'mm-1']) {
      expect(json).not.toContain(secret);
    }
  });

  it('keeps hashes at 2^53+1, 2^63 and 2^64-1 exact, in block_hashes and parent', () => {
    const hashes = [2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n, 0n, 255n, 65535n, 2n ** 32n - 1n];
    const r = ok(
      decodeBatch(
        enc([TS, [storedMap({ block_hashes: hashes, parent_block_hash: 2n ** 64n - 2n })]]),
      ),
    );
    expect(stored(r).block_hashes).toEqual(hashes.map(String));
    expect(stored(r).parent_block_hash).toBe('18446744073709551614');
  });

  it('reads every msgpack int width of a hash (compact encodings too)', () => {
    const r = ok(
      decodeBatch(enc([TS, [storedMap({ block_hashes: [7, 200, 60000, 4000000000, 2n ** 40n] })]])),
    );
    expect(stored(r).block_hashes).toEqual(['7', '200', '60000', '4000000000', String(2 ** 40)]);
  });

  it('keys raw-bytes hashes in lowercase hex', () => {
    const digest = Uint8Array.from({ length: 32 }, (_, i) => i * 8 + 1);
    const r = ok(
      decodeBatch(
        enc([
          TS,
          [storedMap({ block_hashes: [digest], parent_block_hash: Uint8Array.of(0xab, 0x0f) })],
        ]),
      ),
    );
    expect(stored(r).block_hashes).toEqual([Buffer.from(digest).toString('hex')]);
    expect(stored(r).parent_block_hash).toBe('ab0f');
    expect(describeShape(r.shape).hashes).toEqual(['bytes']);
  });

  it('keeps negative int hashes as opaque decimal keys', () => {
    const r = ok(
      decodeBatch(
        enc([TS, [storedMap({ block_hashes: [-5, -300, -(2n ** 63n)], parent_block_hash: -1 })]]),
      ),
    );
    expect(stored(r).block_hashes).toEqual(['-5', '-300', '-9223372036854775808']);
    expect(stored(r).parent_block_hash).toBe('-1');
    expect(describeShape(r.shape).hashes).toEqual(['negative-int']);
  });
});

describe('decodeBatch: fault isolation', () => {
  it('turns a future event type into one error and keeps the rest', () => {
    const r = ok(
      decodeBatch(
        enc([
          TS,
          [
            storedMap(),
            { type: 'BlockEvictedToDisk', block_hashes: [1n] },
            ['BlockRemoved', [11n]],
          ],
        ]),
      ),
    );
    expect(r.events.map((e) => e.idx)).toEqual([0, 2]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.idx).toBe(1);
    expect(r.errors[0]?.error).toMatch(/^SchemaError: event type/);
    expect(r.errors[0]?.error).not.toContain('BlockEvictedToDisk');
  });

  it('counts token ids of every msgpack int width and reads the fields after them', () => {
    // fixint, negative fixint, u8, u16, u32, u64, i8, i16, i32, i64: one of each encoding.
    const tokens = [5, -3, 200, 60000, 4e9, 2n ** 40n, -100, -30000, -2e9, -(2n ** 40n)];
    const payload = enc([TS, [['BlockStored', [1n], null, tokens, 16, null, 'GPU']]]);
    for (const b of [0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3])
      expect(payload.includes(b), `0x${b.toString(16)} in the payload`).toBe(true);
    const ev = stored(ok(decodeBatch(payload)));
    expect(ev.token_count).toBe(tokens.length);
    expect(ev.block_size).toBe(16);
    expect(ev.medium).toBe('GPU');
    // A float among them is no token id: the event is refused, naming the field.
    const r = ok(decodeBatch(enc([TS, [['BlockStored', [1n], null, [1, 0.5], 16, null, 'GPU']]])));
    expect(r.events).toEqual([]);
    expect(r.errors[0]?.error).toMatch(/token_ids entry: expected an int, got a float/);
  });

  it('keeps the good events of a batch with one bad event, naming the field and not its value', () => {
    const badEvents = [
      storedMap({ block_hashes: 'not-a-list' }),
      storedMap({ medium: 424242 }),
      storedMap({ token_ids: [1, 'tok-secret'] }),
      storedMap({ block_size: -1 }),
      ['BlockStored', [1n]],
      { block_hashes: [1n] },
      42,
    ];
    const r = ok(decodeBatch(enc([TS, [storedMap(), ...badEvents, storedMap()]])));
    expect(r.events.map((e) => e.idx)).toEqual([0, badEvents.length + 1]);
    expect(r.errors.map((e) => e.idx)).toEqual(badEvents.map((_, i) => i + 1));
    const messages = r.errors.map((e) => e.error);
    expect(messages[0]).toBe(
      'SchemaError: BlockStored.block_hashes: expected an array of hashes, got a string',
    );
    expect(messages[1]).toContain('medium');
    for (const m of messages) {
      expect(m).toMatch(/^SchemaError: /);
      for (const secret of ['not-a-list', '424242', 'tok-secret']) expect(m).not.toContain(secret);
    }
  });
});

describe('decodeBatch: bad payloads', () => {
  const valid = enc([TS, [storedMap()], 0]);
  const cases: [string, Uint8Array][] = [
    ['a reserved byte', Uint8Array.of(0xc1)],
    ['text', new TextEncoder().encode('hello, not msgpack')],
    ['an empty payload', new Uint8Array(0)],
    ['a truncated batch', valid.subarray(0, valid.length - 3)],
    ['trailing bytes', Uint8Array.from([...valid, 0x00])],
    ['a string instead of a batch', enc('secret-prompt-text')],
    ['an int instead of a batch', enc(12345)],
    ['a one-element array', enc([TS])],
    ['a map without ts', enc({ events: [] })],
    ['a map without events', enc({ ts: TS })],
    ['a string ts', enc(['secret-ts', []])],
    ['events that are not an array', enc([TS, 'secret-events'])],
    ['a rank that is not an int', enc([TS, [], 'secret-rank'])],
  ];
  it.each(cases)(
    'refuses %s with its size and an error class, never its bytes',
    (_name, payload) => {
      const r = bad(decodeBatch(payload));
      expect(r.bytes).toBe(payload.byteLength);
      expect(r.oversized).toBe(false);
      expect(r.error).toMatch(/^(MsgpackError|SchemaError): \S/);
      expect(r.error).not.toMatch(/secret|hello/);
    },
  );

  it('fails fast on lengths declared far beyond the payload', () => {
    const huge = [
      Uint8Array.of(0xdd, 0xff, 0xff, 0xff, 0xff, 0x01),
      Uint8Array.of(0x92, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(0xdf, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(0x81, 0xdb, 0xff, 0xff, 0xff, 0xff, 0x41),
      Uint8Array.of(
        0x92,
        0xcb,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0x91,
        0x92,
        0xab,
        ...Buffer.from('BlockStored'),
        0x91,
        0xc6,
        0xff,
        0xff,
        0xff,
        0xff,
      ),
    ];
    for (const payload of huge) expect(bad(decodeBatch(payload)).error).toMatch(/^MsgpackError: /);
  });

  it('skips a deeply nested unknown field without blowing the stack', () => {
    const depth = 200_000;
    const nested = Buffer.concat([Buffer.alloc(depth, 0x91), Buffer.of(0xc0)]);
    const head = Buffer.from(enc(storedMap({ zz_nested: null })));
    // Replace the trailing nil (the zz_nested value) with the nested arrays.
    const event = Buffer.concat([head.subarray(0, head.length - 1), nested]);
    const payload = Buffer.concat([Buffer.of(0x92, 0xcb), Buffer.alloc(8), Buffer.of(0x91), event]);
    const r = ok(decodeBatch(payload));
    expect(stored(r).token_count).toBe(4);
    expect(describeShape(r.shape).unknownFields).toEqual(['zz_nested']);
  });

  it('refuses a payload over maxPayloadBytes without decoding it', () => {
    const r = bad(decodeBatch(valid, { maxPayloadBytes: valid.length - 1 }));
    expect(r).toEqual({
      ok: false,
      bytes: valid.length,
      oversized: true,
      error: expect.stringMatching(/^PayloadTooLarge: /),
    });
    expect(decodeBatch(valid, { maxPayloadBytes: valid.length }).ok).toBe(true);
  });

  it('refuses a payload over the default 16 MiB limit', () => {
    const big = new Uint8Array(16 * 1024 * 1024 + 1);
    expect(bad(decodeBatch(big)).oversized).toBe(true);
    expect(bad(decodeBatch(big.subarray(1))).oversized).toBe(false);
  });
});

describe('decodeBatch: records and repeated labels', () => {
  it("hands each event as its record: the caller's source and seq, the batch's ts and rank", () => {
    const r = ok(
      decodeBatch(
        enc({ events: [storedMap(), storedMap()], data_parallel_rank: 2, ts: TS }),
        {},
        {
          source: 'src-a',
          seq: 41,
        },
      ),
    );
    expect(r.events.map(({ event: _, ...rest }) => rest)).toEqual([
      { source: 'src-a', seq: 41, ts: TS, dp_rank: 2, idx: 0 },
      { source: 'src-a', seq: 41, ts: TS, dp_rank: 2, idx: 1 },
    ]);
  });

  it('reads each label as sent when labels of one length and the same end bytes alternate', () => {
    // "AB" and "BA" fall in one slot of the label cache; "GPÜ" carries a two-byte char.
    const media = ['AB', 'BA', 'AB', 'GPU', 'GP\u00dc', 'GPU', 'BA'];
    const r = ok(decodeBatch(enc([TS, media.map((medium) => storedMap({ medium }))])));
    expect(r.events.map((e) => e.event.medium)).toEqual(media);
    const again = ok(decodeBatch(enc([TS, media.map((medium) => storedMap({ medium }))])));
    expect(again.events.map((e) => e.event.medium)).toEqual(media);
  });
});

describe('decodeBatch: the field an error names', () => {
  // Labels are made once per type and field (decode-event.ts): each must name its own field, in a
  // positional event (its type known) and in a map event read before its type ('event.').
  const wrong = 'not a value of this field';
  const cases: [field: string, position: number][] = [
    ['block_hashes', 1],
    ['parent_block_hash', 2],
    ['token_ids', 3],
    ['block_size', 4],
    ['lora_id', 5],
    ['medium', 6],
    ['lora_name', 7],
    ['extra_keys', 8],
    ['group_idx', 9],
    ['kv_cache_spec_kind', 10],
    ['kv_cache_spec_sliding_window', 11],
  ];
  const positional: unknown[] = [
    'BlockStored',
    [11n],
    null,
    TOKENS,
    2,
    null,
    'GPU',
    null,
    null,
    0,
    'full_attention',
    null,
  ];
  const wrongOf = (field: string): unknown =>
    field === 'medium' || field.endsWith('kind') || field === 'lora_name' ? 7 : wrong;

  it.each(cases)('names %s (position %i) after BlockStored. or event.', (field, position) => {
    const event = [...positional];
    event[position] = wrongOf(field);
    const inArray = ok(decodeBatch(enc([TS, [event]])));
    expect(inArray.errors[0]?.error).toMatch(new RegExp(`^SchemaError: BlockStored\\.${field}: `));
    const inMap = ok(decodeBatch(enc([TS, [{ [field]: wrongOf(field), type: 'BlockStored' }]])));
    expect(inMap.errors[0]?.error).toMatch(new RegExp(`^SchemaError: event\\.${field}: `));
  });

  it('names BlockRemoved.block_hashes', () => {
    const r = ok(decodeBatch(enc([TS, [['BlockRemoved', wrong, 'GPU']]])));
    expect(r.errors[0]?.error).toMatch(/^SchemaError: BlockRemoved\.block_hashes: /);
  });
});

describe('decodeBatch: u64 hashes as decimal parts (hashParts, the live path)', () => {
  it("reads every fixture frame as the text mode does, the u64 hashes' texts made from their parts", () => {
    let lists = 0;
    for (const fixture of ALL_FIXTURES) {
      for (const payload of readPayloads(fixture.frames)) {
        const parts = decodeBatch(payload, { hashParts: true });
        for (const e of parts.ok ? parts.events : [])
          if (e.event.type !== 'AllBlocksCleared' && e.event.block_hashes instanceof DecimalHashes)
            lists += 1;
        expect(withHashTexts(parts)).toEqual(decodeBatch(payload));
      }
    }
    expect(lists).toBeGreaterThan(1000);
  });

  it('keeps a list as texts where a hash is no u64 (bytes, a negative int), whatever came before it', () => {
    for (const hashes of [
      [2n ** 64n - 1n, 5n, Uint8Array.of(0xab, 0x01)],
      [7n, -3n],
      [Uint8Array.of(1, 2), 2n ** 63n],
    ]) {
      const r = ok(
        decodeBatch(enc([TS, [storedMap({ block_hashes: hashes })]]), { hashParts: true }),
      );
      expect(Array.isArray(stored(r).block_hashes)).toBe(true);
      expect(r.events).toEqual(
        ok(decodeBatch(enc([TS, [storedMap({ block_hashes: hashes })]]))).events,
      );
    }
  });

  it('reads a u64 of every msgpack width, 2^53 and 10^10 at their edges, as its decimal', () => {
    const values = [0n, 127n, 128n, 255n, 256n, 65535n, 65536n, 2n ** 32n - 1n, 2n ** 32n];
    for (const v of [2n ** 53n, 10n ** 10n, 10n ** 19n, 2n ** 64n - 1n])
      values.push(v - 1n, v, v + 1n);
    const hashes = values.filter((v) => v < 2n ** 64n);
    const r = ok(
      decodeBatch(enc([TS, [storedMap({ block_hashes: hashes })]]), { hashParts: true }),
    );
    const list = stored(r).block_hashes;
    expect(list).toBeInstanceOf(DecimalHashes);
    expect(hashTexts(list)).toEqual(hashes.map(String));
    expect(r.shape.hashKinds).toBe(HASH_INT);
  });
});
