// What the reconciliation panel says of resident blocks from the events beside the engine's usage.
import { describe, expect, it } from 'vitest';
import type { EngineReconciliation } from '../../shared/api-types';
import { hitRateNote, pct, residencyVerdict } from '../../renderer/lib/engine-verdict';

const base: EngineReconciliation = {
  source: 's',
  url: 'http://127.0.0.1:8000/metrics',
  ok: true,
  message: null,
  readAt: 1,
  numGpuBlocks: 10_000,
  blockSize: 16,
  usage: 0.5,
  engineUsedBlocks: 5000,
  eventResidentBlocks: 5000,
  kvCacheGroups: 1,
  hitRate: 0.4,
  windowHitRate: 0.5,
  windowSec: 60,
  announcedHits: 10,
  newStores: 30,
  announcedHitRatio: 0.25,
  preemptions: 0,
  preemptionSteps: [],
  whatIfCapacity: { blocks: 10_000, basis: 'engine' },
};

const kind = (over: Partial<EngineReconciliation>) => residencyVerdict({ ...base, ...over }).kind;

describe('the residency verdict', () => {
  it('agrees within 2% of the GPU blocks (partly filled blocks of running requests)', () => {
    expect(kind({ eventResidentBlocks: 5000 - 200 })).toBe('agree');
    expect(kind({ eventResidentBlocks: 5000 + 200 })).toBe('agree');
  });

  it('says the events are short of the engine: a late join or lost stores', () => {
    const v = residencyVerdict({ ...base, eventResidentBlocks: 4000 });
    expect(v.kind).toBe('events-short');
    expect(v.text).toContain('1,000 blocks more than the events show');
    expect(v.text).toMatch(/joined after the engine started/);
  });

  it("says a hybrid model's engine holds a block once per KV cache group, the events its hash once", () => {
    const v = residencyVerdict({ ...base, eventResidentBlocks: 2500, kvCacheGroups: 2 });
    expect(v.kind).toBe('events-short');
    expect(v.text).toMatch(
      /2,500 blocks more than the events show: its 2 KV cache groups \(a hybrid model\) each hold a block the events count once, by its hash/,
    );
  });

  it('says more cached by the events than in use is normal, and past the GPU is lost removals', () => {
    expect(kind({ eventResidentBlocks: 9000 })).toBe('cached');
    const over = residencyVerdict({ ...base, eventResidentBlocks: 10_500 });
    expect(over.kind).toBe('events-over');
    expect(over.text).toMatch(/500 blocks more than the GPU has: removals were lost/);
  });

  it('has nothing to compare without usage or num_gpu_blocks', () => {
    expect(kind({ engineUsedBlocks: null, usage: null })).toBe('unknown');
    expect(kind({ numGpuBlocks: null, engineUsedBlocks: null })).toBe('unknown');
  });
});

describe('the hit-rate note', () => {
  it('points at kv_cache_report_mode when the events announce no hits but the engine hits', () => {
    expect(hitRateNote({ ...base, announcedHits: 0 })).toMatch(/kv_cache_report_mode="full"/);
    expect(hitRateNote({ ...base, hitRate: null })).toMatch(/no prefix-cache counters/);
    expect(pct(0.1234)).toBe('12.3%');
    expect(pct(null)).toBe('—');
  });
});
