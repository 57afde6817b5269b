import { createHash } from 'node:crypto';
import { Decoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import type { KvEvent } from '../../shared/events';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { FingerprintBuilder } from '../../electron/wire/fingerprint';
import { parseMessage, topicText } from '../../electron/wire/message';
import type { TruthEvent } from '../support/fixture-frames';
import { HYBRID_INT, LEGACY_INT, readFramesFile, readTruth } from '../support/fixture-frames';
import { hashTexts } from '../../shared/hash-list';

/** The redacted event the truth row says the decoder must produce. */
function expectedEvent(t: TruthEvent): KvEvent {
  if (t.type === 'BlockStored') {
    return {
      type: 'BlockStored',
      block_hashes: t.block_hashes ?? [],
      parent_block_hash: t.parent_block_hash ?? null,
      token_count: t.token_count ?? -1,
      block_size: t.block_size ?? -1,
      lora_id: t.lora_id ?? null,
      medium: t.medium ?? null,
      lora_name: t.lora_name ?? null,
      extra_keys_count: (t.extra_keys ?? []).filter((k) => k !== null).length,
      group_idx: t.group_idx ?? null,
      kv_cache_spec_kind: t.kv_cache_spec_kind ?? null,
      kv_cache_spec_sliding_window: t.kv_cache_spec_sliding_window ?? null,
      metadata_count: 0,
      session_id_count: 0,
    };
  }
  if (t.type === 'BlockRemoved') {
    return {
      type: 'BlockRemoved',
      block_hashes: t.block_hashes ?? [],
      medium: t.medium ?? null,
      group_idx: t.group_idx ?? null,
    };
  }
  return { type: 'AllBlocksCleared', medium: t.medium ?? null };
}

/** Token id arrays of a payload, read with a generic decoder (the test's own view of the bytes). */
function tokenArrays(payload: Uint8Array): number[][] {
  const batch = new Decoder({ useBigInt64: true }).decode(payload) as [number, unknown[]];
  const out: number[][] = [];
  for (const ev of batch[1]) {
    if (Array.isArray(ev) && ev[0] === 'BlockStored') out.push(ev[3] as number[]);
    else if (!Array.isArray(ev) && (ev as { type: string }).type === 'BlockStored') {
      out.push((ev as { token_ids: number[] }).token_ids);
    }
  }
  return out;
}

const ALLOWED_KEYS = new Set([
  'ok',
  'ts',
  'dpRank',
  'events',
  'errors',
  // An event comes as its record: the caller's source id and seq, the batch's ts and rank.
  'source',
  'seq',
  'dp_rank',
  'idx',
  'event',
  'type',
  'block_hashes',
  'parent_block_hash',
  'token_count',
  'block_size',
  'lora_id',
  'medium',
  'lora_name',
  'extra_keys_count',
  'group_idx',
  'kv_cache_spec_kind',
  'kv_cache_spec_sliding_window',
  'metadata_count',
  'session_id_count',
  'shape',
  'batch',
  'eventEncodings',
  'hashKinds',
  'rankField',
  'fieldMask',
  'unknownFields',
]);

/** Every key of the decoded output is a redacted field, and no array holds a number. */
function assertRedactedShape(value: unknown, path = '$'): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      expect(typeof v, `${path}[${i}] is a number inside an array`).not.toBe('number');
      assertRedactedShape(v, `${path}[${i}]`);
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      expect(ALLOWED_KEYS.has(k), `${path}.${k} is not a redacted field`).toBe(true);
      assertRedactedShape(v, `${path}.${k}`);
    }
  }
}

describe.each([
  ['hybrid-int (positional batch, map events)', HYBRID_INT, 'map'],
  ['legacy-int (positional batch and events)', LEGACY_INT, 'array'],
] as const)('fixture %s', (_label, fixture, eventEncoding) => {
  const messages = readFramesFile(fixture.frames);
  const truth = readTruth(fixture.truth);

  it('decodes every message into exactly the events vLLM decoded', () => {
    expect(messages).toHaveLength(240);
    const bySeq = new Map<number, TruthEvent[]>();
    for (const t of truth) bySeq.set(t.seq, [...(bySeq.get(t.seq) ?? []), t]);
    let compared = 0;
    for (const frames of messages) {
      const msg = parseMessage(frames);
      if (!msg.ok) throw new Error(msg.error);
      expect(topicText(msg.topicFrame)).toBe('kv-events');
      const rows = bySeq.get(Number(msg.seq)) ?? [];
      const decoded = decodeBatch(msg.payload);
      if (!decoded.ok) throw new Error(decoded.error);
      expect(decoded.errors).toEqual([]);
      expect(decoded.events).toHaveLength(rows[0]?.n_events ?? 0);
      for (const [i, t] of rows.entries()) {
        expect(msg.payload.byteLength).toBe(t.payload_len);
        const sha = createHash('sha256').update(msg.payload).digest('hex').slice(0, 16);
        expect(sha).toBe(t.payload_sha256_16);
        expect(decoded.ts).toBe(t.ts);
        expect(decoded.dpRank).toBe(t.dp_rank);
        const got = decoded.events[i];
        expect(got?.idx).toBe(t.idx);
        expect(got?.event).toEqual(expectedEvent(t));
        compared++;
      }
    }
    expect(compared).toBe(truth.length);
  });

  it('keeps hashes above 2^53 and 2^63 exact', () => {
    const big = truth.flatMap((t) => t.block_hashes ?? []).filter((h) => BigInt(h) >= 2n ** 63n);
    expect(big.length).toBeGreaterThan(100);
    const decoded = new Set<string>();
    for (const frames of messages) {
      const d = decodeBatch(frames[2] as Uint8Array);
      if (d.ok)
        for (const e of d.events)
          if (e.event.type !== 'AllBlocksCleared')
            hashTexts(e.event.block_hashes).forEach((h) => decoded.add(h));
    }
    for (const h of big) expect(decoded.has(h)).toBe(true);
  });

  it('lets no token id and no extra key value out of the decoder', () => {
    // Strings carried in extra_keys (multimodal ids, salts) that are not also LoRA names.
    const loraNames = new Set(truth.map((t) => t.lora_name).filter((n) => typeof n === 'string'));
    const secrets = new Set(
      truth
        .flatMap((t) => (t.extra_keys ?? []).flat(3))
        .filter((v): v is string => typeof v === 'string' && !loraNames.has(v)),
    );
    if (eventEncoding === 'map') expect(secrets.size).toBeGreaterThan(0);
    let tokenArraysSeen = 0;
    for (const frames of messages) {
      const payload = frames[2] as Uint8Array;
      const decoded = decodeBatch(payload);
      assertRedactedShape(decoded);
      const json = JSON.stringify(decoded);
      for (const ids of tokenArrays(payload)) {
        tokenArraysSeen++;
        // A run of 3+ ids is distinctive; shorter runs are covered by assertRedactedShape.
        if (ids.length >= 3) expect(json).not.toContain(JSON.stringify(ids).slice(1, -1));
      }
      for (const s of secrets) expect(json).not.toContain(s);
    }
    expect(tokenArraysSeen).toBe(truth.filter((t) => t.type === 'BlockStored').length);
  });

  it('counts the tokens vLLM published (length and sum agree with the truth)', () => {
    const stored = truth.filter((t) => t.type === 'BlockStored');
    const arrays = messages.flatMap((frames) => tokenArrays(frames[2] as Uint8Array));
    expect(arrays.map((a) => a.length)).toEqual(stored.map((t) => t.token_count));
    expect(arrays.map((a) => a.reduce((s, x) => s + x, 0))).toEqual(stored.map((t) => t.token_sum));
  });

  it('fingerprints the publisher from what arrived', () => {
    const fp = new FingerprintBuilder();
    expect(fp.snapshot()).toBeNull();
    for (const frames of messages) {
      const d = decodeBatch(frames[2] as Uint8Array);
      if (d.ok) fp.observe(d.shape);
    }
    const snap = fp.snapshot();
    expect(snap?.batch).toEqual(['array']);
    expect(snap?.events).toEqual([eventEncoding]);
    expect(snap?.hashes).toEqual(['int']);
    expect(snap?.rankField).toEqual(['data_parallel_rank']);
    expect(snap?.unknownFields).toEqual([]);
    const base = [
      'block_hashes',
      'block_size',
      'lora_id',
      'medium',
      'parent_block_hash',
      'token_ids',
      'type',
    ];
    const full = [...base, 'extra_keys', 'group_idx', 'kv_cache_spec_kind', 'lora_name'].sort();
    expect(snap?.fields).toEqual(eventEncoding === 'map' ? full : base);
  });
});
