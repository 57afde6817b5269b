import { decode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { encodeBatch, garbagePayload } from '../../electron/sim/encode';
import type { RawBlockStored, RawEvent } from '../../electron/sim/types';

const BIG = 2n ** 64n - 2n;
const stored: RawBlockStored = {
  type: 'BlockStored',
  block_hashes: [BIG, 59n, 2n ** 53n + 1n],
  parent_block_hash: 2n ** 63n + 5n,
  token_ids: [1, 150_000, 7],
  block_size: 16,
  lora_id: null,
  medium: 'GPU',
  lora_name: null,
  extra_keys: [null, null, null],
  group_idx: 0,
  kv_cache_spec_kind: 'full_attention',
  kv_cache_spec_sliding_window: null,
};
const events: RawEvent[] = [
  stored,
  { type: 'BlockRemoved', block_hashes: [BIG], medium: 'GPU', group_idx: 0 },
  { type: 'AllBlocksCleared' },
];
const dec = (b: Uint8Array): unknown => decode(b, { useBigInt64: true });

describe('encodeBatch', () => {
  it('writes a positional batch of tagged-map events with defaulted fields omitted (map)', () => {
    const out = dec(encodeBatch(1767225601.25, events, 0, 'map')) as [
      number,
      Record<string, unknown>[],
      number,
    ];
    expect(out[0]).toBe(1767225601.25);
    expect(out[2]).toBe(0);
    const [s, r, c] = out[1];
    expect(Object.keys(s ?? {})).toEqual([
      'type',
      'block_hashes',
      'parent_block_hash',
      'token_ids',
      'block_size',
      'lora_id',
      'medium',
      'lora_name',
      'extra_keys',
      'group_idx',
      'kv_cache_spec_kind',
    ]);
    expect(s?.block_hashes).toEqual([BIG, 59, 2n ** 53n + 1n]);
    expect(s?.parent_block_hash).toBe(2n ** 63n + 5n);
    expect(r).toEqual({ type: 'BlockRemoved', block_hashes: [BIG], medium: 'GPU', group_idx: 0 });
    expect(c).toEqual({ type: 'AllBlocksCleared' });
  });

  it('writes legacy positional events with trailing defaults omitted (array)', () => {
    const legacy: RawBlockStored = {
      ...stored,
      extra_keys: null,
      group_idx: null,
      kv_cache_spec_kind: null,
    };
    const lora: RawBlockStored = { ...legacy, lora_id: 2, lora_name: 'chat-lora-v2' };
    const rm: RawEvent = {
      type: 'BlockRemoved',
      block_hashes: [1n],
      medium: 'CPU',
      group_idx: null,
    };
    const out = dec(
      encodeBatch(2.5, [legacy, lora, rm, { type: 'AllBlocksCleared' }], 1, 'array'),
    ) as unknown[];
    const ev = out[1] as unknown[][];
    expect(ev[0]).toEqual([
      'BlockStored',
      [BIG, 59, 2n ** 53n + 1n],
      2n ** 63n + 5n,
      [1, 150_000, 7],
      16,
      null,
      'GPU',
    ]);
    expect(ev[1]).toHaveLength(8);
    expect(ev[1]?.[7]).toBe('chat-lora-v2');
    expect(ev[2]).toEqual(['BlockRemoved', [1], 'CPU']);
    expect(ev[3]).toEqual(['AllBlocksCleared']);
    expect(out[2]).toBe(1);
  });

  it('uses msgpack uint64 (0xcf) for hashes of 2^32 and above and the smallest int otherwise', () => {
    const b = Buffer.from(
      encodeBatch(
        1.5,
        [{ type: 'BlockRemoved', block_hashes: [2n ** 63n, 5n], medium: null, group_idx: null }],
        null,
        'array',
      ),
    );
    const at = b.indexOf(0xcf);
    expect(at).toBeGreaterThan(0);
    expect(b.readBigUInt64BE(at + 1)).toBe(2n ** 63n);
    expect(b[at + 9]).toBe(5); // positive fixint
  });

  it('writes the ts as float64 even when it is a whole number, and omits a null rank', () => {
    const b = encodeBatch(1767225600, [], null, 'map');
    expect(b[0]).toBe(0x92);
    expect(b[1]).toBe(0xcb);
  });

  it('writes bytes hashes as bin', () => {
    const digest = new Uint8Array(32).fill(0xab);
    const out = dec(
      encodeBatch(
        1.5,
        [{ type: 'BlockRemoved', block_hashes: [digest], medium: 'GPU', group_idx: 0 }],
        0,
        'map',
      ),
    ) as [number, { block_hashes: unknown[] }[]];
    expect(out[1][0]?.block_hashes[0]).toEqual(digest);
  });

  it('makes garbage that msgpack cannot decode', () => {
    expect(() => dec(garbagePayload(3))).toThrow();
  });
});
