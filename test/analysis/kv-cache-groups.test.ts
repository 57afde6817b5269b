// KV cache groups (vLLM's group_idx): a hybrid model publishes each block once per group. The
// figures count by hash, all groups together (DESIGN's definitions); the report lists the groups
// each source named, and an analysis of one group alone skips the others' stores and removals.
import { describe, expect, it } from 'vitest';
import { toAnalyzeJson } from '../../electron/analysis/analyze-json';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import type { BlockRemovedEvent, BlockStoredEvent } from '../../shared/events';
import type { IngestRecord } from '../../shared/records';
import { batch, cleared, removed, stored } from './helpers';

const inGroup = <E extends BlockStoredEvent | BlockRemovedEvent>(
  e: E,
  group: number | null,
  kind: string | null = null,
  window: number | null = null,
): E =>
  e.type === 'BlockStored'
    ? { ...e, group_idx: group, kv_cache_spec_kind: kind, kv_cache_spec_sliding_window: window }
    : { ...e, group_idx: group };

// A hybrid model's request: its two blocks cached in the full-attention group (0) and in the
// sliding-window group (1); the window group evicts them first, the full group keeps them.
const stream = (): IngestRecord[] => [
  batch('e', 1, [
    inGroup(stored(['a', 'b']), 0, 'full_attention'),
    inGroup(stored(['a', 'b']), 1, 'sliding_window', 128),
  ]),
  batch('e', 2, [inGroup(removed(['a', 'b']), 1)]),
  batch('e', 3, [inGroup(stored(['a']), 0, 'full_attention')]),
];

function run(records: IngestRecord[], opts?: ConstructorParameters<typeof CacheAnalysis>[0]) {
  const a = new CacheAnalysis(opts);
  for (const r of records) a.apply(r);
  return a.report();
}

describe('KV cache groups', () => {
  it('counts every group together by hash: a store into a second group is a hit, a removal from one ends the block', () => {
    const r = run(stream());
    expect(r.group).toBeNull();
    // a's store into the full group after the window group evicted it reads as a re-store.
    expect(r.totals).toMatchObject({
      newStores: 3,
      announcedHits: 2,
      restores: 1,
      residentBlocks: 1,
    });
    expect(r.sources[0]?.kvCacheGroupCount).toBe(2);
    expect(r.sources[0]?.kvCacheGroups).toEqual([
      { group: 0, kind: 'full_attention', slidingWindow: null, storedBlocks: 3, removedBlocks: 0 },
      { group: 1, kind: 'sliding_window', slidingWindow: 128, storedBlocks: 2, removedBlocks: 2 },
    ]);
  });

  it('analyses one group alone: the figures of that group, the others still listed', () => {
    const full = run(stream(), { group: 0 });
    expect(full.group).toBe(0);
    expect(full.totals).toMatchObject({
      storedBlocks: 3,
      removedBlocks: 0,
      newStores: 2,
      announcedHits: 1,
      residentBlocks: 2,
    });
    expect(full.sources[0]?.kvCacheGroups.map((g) => g.group)).toEqual([0, 1]);
    const window = run(stream(), { group: 1 });
    expect(window.totals).toMatchObject({ newStores: 2, announcedHits: 0, residentBlocks: 0 });
    expect(window.lifetimes[0]?.count).toBe(2);
    const json = toAnalyzeJson(window);
    expect(json.kv_cache_group).toBe(1);
    expect((json.per_source as Record<string, Record<string, unknown>>).e).toMatchObject({
      kv_cache_group_count: 2,
      kv_cache_groups: [
        { group: 0, kind: 'full_attention', sliding_window: null, stored_blocks: 3 },
        { group: 1, kind: 'sliding_window', sliding_window: 128, removed_blocks: 2 },
      ],
    });
  });

  it('reads an event without a group_idx as group 0, as vLLM does, and a clear as every group', () => {
    const r = run(
      [
        batch('e', 1, [stored(['a']), inGroup(stored(['b']), 1)]),
        batch('e', 2, [cleared()]),
        batch('e', 3, [stored(['a'])]),
      ],
      { group: 0 },
    );
    expect(r.sources[0]?.kvCacheGroups.map((g) => [g.group, g.storedBlocks])).toEqual([
      [0, 2],
      [1, 1],
    ]);
    expect(r.totals).toMatchObject({ newStores: 2, announcedHits: 0, residentBlocks: 1 });
  });

  it('names a kind only when it is a short word; lists 16 groups of a source and counts 64', () => {
    const events = Array.from({ length: 70 }, (_, g) =>
      inGroup(stored([`h${g}`]), g, g === 0 ? 'x'.repeat(41) : 'full_attention'),
    );
    const a = new CacheAnalysis({ group: 69 });
    a.apply(batch('e', 1, events));
    const s = a.report().sources[0];
    expect(s?.kvCacheGroupCount).toBe(64);
    expect(s?.kvCacheGroupsCapped).toBe(true);
    expect(s?.kvCacheGroups).toHaveLength(16);
    expect(s?.kvCacheGroups[0]?.kind).toBeNull();
    expect(s?.kvCacheGroups[1]?.kind).toBe('full_attention');
    // A group past those counted is still the one analysed when picked.
    expect(a.report().totals.newStores).toBe(1);
    expect(a.sources[0]?.groups.size).toBe(64);
  });

  it('refuses a group that is no group number', () => {
    for (const group of [-1, 1.5, 70_000, Number.NaN])
      expect(() => new CacheAnalysis({ group })).toThrow(/KV cache group must be a whole number/);
  });
});
