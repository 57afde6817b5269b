import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { FingerprintBuilder } from '../../electron/wire/fingerprint';

const enc = (v: unknown): Uint8Array => new Encoder({ useBigInt64: true }).encode(v);
const shapeOf = (v: unknown) => {
  const r = decodeBatch(enc(v));
  if (!r.ok) throw new Error(r.error);
  return r.shape;
};

describe('FingerprintBuilder', () => {
  it('is null before the first batch', () => {
    expect(new FingerprintBuilder().snapshot()).toBeNull();
  });

  it('merges encodings, hash kinds, rank fields and field names across batches', () => {
    const fp = new FingerprintBuilder();
    fp.observe(shapeOf([1.5, [['BlockRemoved', [1n], 'GPU']], 0]));
    const first = fp.snapshot();
    expect(first).toEqual({
      batch: ['array'],
      events: ['array'],
      hashes: ['int'],
      rankField: ['data_parallel_rank'],
      fields: ['block_hashes', 'medium', 'type'],
      unknownFields: [],
    });
    fp.observe(shapeOf([1.5, [['BlockRemoved', [2n], 'GPU']], 0]));
    expect(fp.snapshot()).toBe(first);
    fp.observe(
      shapeOf({
        ts: 2,
        attn_dp_rank: 1,
        events: [{ type: 'BlockRemoved', block_hashes: [Uint8Array.of(1), -3], origin: 'NEW' }],
      }),
    );
    const second = fp.snapshot();
    expect(second).not.toBe(first);
    expect(second).toEqual({
      batch: ['array', 'map'],
      events: ['array', 'map'],
      hashes: ['int', 'bytes', 'negative-int'],
      rankField: ['attn_dp_rank', 'data_parallel_rank'],
      fields: ['block_hashes', 'medium', 'origin', 'type'],
      unknownFields: ['origin'],
    });
  });

  it('keeps a bounded number of unknown field names', () => {
    const fp = new FingerprintBuilder();
    for (let i = 0; i < 300; i++)
      fp.observe(shapeOf([1, [{ type: 'AllBlocksCleared', [`f${i}`]: 1 }]]));
    expect(fp.snapshot()?.unknownFields.length).toBeLessThanOrEqual(64);
  });
});
