// Today's wire (DESIGN.md "The wire", mid-2026): vLLM's locality / ownership / session_id and
// medium STORAGE, SGLang's media, kv_cache_report_mode="full" re-announcements, unknown fields.
// Payloads are msgpack as the engines publish them, decoded and applied as the live path does.
import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { Residency } from '../../electron/model/residency';
import { decodeBatch, describeShape } from '../../electron/wire/decode-batch';
import { FingerprintBuilder } from '../../electron/wire/fingerprint';
import type { BlockRemovedEvent, BlockStoredEvent, KvEvent } from '../../shared/events';
import { UNSPECIFIED_MEDIUM } from '../../shared/events';
import type { IngestRecord } from '../../shared/records';
import { hashTexts } from '../../shared/hash-list';

const encoder = new Encoder({ useBigInt64: true });
const T0 = 1767225600;

function decoded(payload: unknown) {
  const r = decodeBatch(encoder.encode(payload));
  if (!r.ok) throw new Error(r.error);
  expect(r.errors).toEqual([]);
  return r;
}

/** The batch record the live path hands on for one payload of `source`. */
function record(source: string, seq: number, payload: unknown): IngestRecord {
  const r = decoded(payload);
  const ts = r.ts ?? 0;
  return {
    k: 'batch',
    meta: { source, seq, ts, dpRank: r.dpRank },
    events: r.events.map((e) => ({
      source,
      seq,
      ts,
      dp_rank: r.dpRank,
      idx: e.idx,
      event: e.event,
    })),
  };
}

const vllmStored = (hashes: bigint[], extra: Record<string, unknown> = {}) => ({
  type: 'BlockStored',
  block_hashes: hashes,
  parent_block_hash: null,
  token_ids: hashes.flatMap(() => [101, 102, 103, 104]),
  block_size: 4,
  lora_id: null,
  medium: 'GPU',
  ...extra,
});

describe("vLLM's mid-2026 fields", () => {
  it('keeps locality and ownership on stores and removals, as known fields of the fingerprint', () => {
    const r = decoded([
      T0,
      [
        vllmStored([1n, 2n], { medium: 'STORAGE', locality: 'REMOTE', ownership: 'tier-2' }),
        {
          type: 'BlockRemoved',
          block_hashes: [1n],
          medium: 'STORAGE',
          locality: 'LOCAL',
          ownership: 7,
        },
        vllmStored([3n]),
      ],
      0,
    ]);
    const [s, rm, plain] = r.events.map((e) => e.event) as [
      BlockStoredEvent,
      BlockRemovedEvent,
      BlockStoredEvent,
    ];
    expect(s).toMatchObject({ medium: 'STORAGE', locality: 'REMOTE', ownership: 'tier-2' });
    // A tier id sent as a number reads as its text.
    expect(rm).toMatchObject({ medium: 'STORAGE', locality: 'LOCAL', ownership: '7' });
    expect(plain).not.toHaveProperty('locality');
    expect(plain).not.toHaveProperty('ownership');
    const words = describeShape(r.shape);
    expect(words.fields).toEqual(expect.arrayContaining(['locality', 'ownership']));
    expect(words.unknownFields).toEqual([]);
  });

  it('skips a locality or ownership that is not a label, names it as drift, and keeps the event', () => {
    const r = decoded([
      T0,
      [
        vllmStored([1n], { locality: { node: 'rack-7-secret' }, ownership: 'x'.repeat(65) }),
        vllmStored([2n], { ownership: 'has spaces secret' }),
        vllmStored([3n], { ownership: 2n ** 60n }),
      ],
    ]);
    expect(r.events).toHaveLength(3);
    for (const e of r.events) {
      expect(e.event).not.toHaveProperty('locality');
      expect(e.event).not.toHaveProperty('ownership');
    }
    expect(describeShape(r.shape).unknownFields).toEqual(['locality', 'ownership']);
    expect(describeShape(r.shape).fields.filter((f) => f === 'locality')).toHaveLength(1);
    expect(JSON.stringify(r)).not.toContain('secret');
  });

  it('keeps session_id as presence only, whatever its type', () => {
    const r = decoded([
      T0,
      [
        vllmStored([1n], { session_id: 'tenant-secret' }),
        vllmStored([2n], { session_id: 424242 }),
        vllmStored([3n], { session_id: null }),
      ],
    ]);
    expect(r.events.map((e) => (e.event as BlockStoredEvent).session_id_count)).toEqual([1, 1, 0]);
    expect(JSON.stringify(r)).not.toMatch(/tenant-secret|424242/);
  });

  it('keeps proposed and unknown fields in the fingerprint and never fails the batch on them', () => {
    const fp = new FingerprintBuilder();
    const r = decoded({
      ts: T0,
      events: [
        vllmStored([1n], { origin: 'REUSED', event_version: 3 }),
        {
          type: 'BlockRemoved',
          block_hashes: [1n],
          medium: 'GPU',
          remaining_copy_counts: [0, 1],
        },
      ],
      data_parallel_rank: 0,
    });
    fp.observe(r.shape);
    expect(r.events.map((e) => e.event.type)).toEqual(['BlockStored', 'BlockRemoved']);
    expect(fp.snapshot()?.unknownFields.sort()).toEqual([
      'event_version',
      'origin',
      'remaining_copy_counts',
    ]);
  });
});

describe("SGLang's media and residency per tier", () => {
  it('keeps residency and lifetimes apart for any medium name, SGLang and vLLM alike', () => {
    const media = ['GPU', 'CPU_PINNED', 'DISK', 'EXTERNAL', 'STORAGE', 'L3_NVME_pool-2'];
    const residency = new Residency();
    const analysis = new CacheAnalysis();
    const apply = (r: IngestRecord): void => {
      analysis.apply(r);
      if (r.k !== 'batch') return;
      for (const e of r.events) {
        const ev: KvEvent = e.event;
        if (ev.type === 'AllBlocksCleared') continue;
        const m = ev.medium ?? UNSPECIFIED_MEDIUM;
        for (const h of hashTexts(ev.block_hashes)) {
          if (ev.type === 'BlockStored') residency.store(e.source, m, h);
          else residency.remove(e.source, m, h);
        }
      }
    };
    // SGLang: positional events, metadata map at 7, the rank as attn_dp_rank. Medium i holds
    // i + 1 blocks; the same hash 1 sits in every medium at once.
    apply(
      record('sg', 0, {
        ts: T0,
        events: media.map((m, i) => [
          'BlockStored',
          [1n, ...Array.from({ length: i }, (_, j) => BigInt(100 * (i + 1) + j))],
          null,
          [1, 2, 3, 4],
          4,
          null,
          m,
          { cache_salt: 'salt-secret' },
        ]),
        attn_dp_rank: 0,
      }),
    );
    // One removal per medium, of hash 1, two seconds later: one lifetime sample each.
    apply(record('sg', 1, { ts: T0 + 2, events: media.map((m) => ['BlockRemoved', [1n], m]) }));
    media.forEach((m, i) => {
      expect(residency.ofSourceMedium('sg', m), m).toBe(i);
      expect(residency.ofMedium(m), m).toBe(i);
    });
    const report = analysis.report();
    for (const [i, m] of media.entries()) {
      const w = report.whatIf.find((x) => x.source === 'sg' && x.medium === m);
      expect(w, m).toMatchObject({ peakResident: i + 1, newStores: i + 1 });
      const l = report.lifetimes.find((x) => x.medium === m);
      expect(l, m).toMatchObject({ count: 1, p50S: 2 });
    }
  });
});

describe('kv_cache_report_mode="full"', () => {
  it('counts re-announced resident blocks as announced hits, not new stores', () => {
    const a = new CacheAnalysis();
    // Request 1 stores a 3-block prefix; request 2 reuses it and adds one: vLLM in "full" mode
    // announces all four; request 3 re-announces the first two after block 3 was evicted.
    a.apply(record('v', 0, [T0, [vllmStored([11n, 12n, 13n])], 0]));
    a.apply(record('v', 1, [T0 + 1, [vllmStored([11n, 12n, 13n, 14n])], 0]));
    a.apply(
      record('v', 2, [
        T0 + 2,
        [{ type: 'BlockRemoved', block_hashes: [13n], medium: 'GPU' }, vllmStored([11n, 12n, 13n])],
        0,
      ]),
    );
    const t = a.report().totals;
    expect(t.storedBlocks).toBe(10);
    expect(t.newStores).toBe(5);
    expect(t.announcedHits).toBe(5);
    expect(t.hitRatio).toBe(0.5);
    // 13 came back after its removal: a re-store, not a hit.
    expect(t.restores).toBe(1);
    expect(t.residentBlocks).toBe(4);
  });
});
