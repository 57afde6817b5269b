// The encoder against bytes vLLM itself published: re-encoding the recorded fixtures' events must
// give back the very same payloads.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../electron/sim/encode';
import type { RawEvent, SimHash, WireFormat } from '../../electron/sim/types';

function* messages(file: string): Generator<Buffer[]> {
  const b = readFileSync(resolve(import.meta.dirname, '../fixtures/vllm', file));
  let o = 0;
  while (o < b.length) {
    const n = b.readUInt32BE(o);
    o += 4;
    const frames: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const len = b.readUInt32BE(o);
      frames.push(b.subarray(o + 4, o + 4 + len));
      o += 4 + len;
    }
    yield frames;
  }
}

const STORED = [
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
  'kv_cache_spec_sliding_window',
];
const REMOVED = ['block_hashes', 'medium', 'group_idx'];
const h = (v: unknown): SimHash => (v instanceof Uint8Array ? v : BigInt(v as number));

function toRaw(e: unknown): RawEvent {
  const named: Record<string, unknown> = {};
  let type: string;
  if (Array.isArray(e)) {
    type = String(e[0]);
    (type === 'BlockStored' ? STORED : REMOVED).forEach((k, i) => (named[k] = e[i + 1] ?? null));
  } else {
    const m = e as Record<string, unknown>;
    type = String(m.type);
    for (const k of type === 'BlockStored' ? STORED : REMOVED) named[k] = m[k] ?? null;
  }
  if (type === 'AllBlocksCleared') return { type };
  const hashes = (named.block_hashes as unknown[]).map(h);
  if (type === 'BlockRemoved') {
    return {
      type,
      block_hashes: hashes,
      medium: named.medium as string,
      group_idx: named.group_idx as number,
    };
  }
  return {
    ...(named as unknown as RawEvent),
    type: 'BlockStored',
    block_hashes: hashes,
    parent_block_hash: named.parent_block_hash === null ? null : h(named.parent_block_hash),
  } as RawEvent;
}

describe('encodeBatch against vLLM-published fixtures', () => {
  for (const [file, format] of [
    ['hybrid-int.frames', 'map'],
    ['legacy-int.frames', 'array'],
  ] as [string, WireFormat][]) {
    it(`re-encodes every payload of ${file} byte for byte`, () => {
      let n = 0;
      for (const [, , payload] of messages(file)) {
        const [ts, events, rank] = decode(payload!, { useBigInt64: true }) as [
          number,
          unknown[],
          number,
        ];
        const again = encodeBatch(ts, events.map(toRaw), rank, format);
        expect(Buffer.from(again).equals(payload!)).toBe(true);
        n++;
      }
      expect(n).toBe(240);
    });
  }
});
