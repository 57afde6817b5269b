import { describe, expect, it } from 'vitest';
import type { ChainQuery } from '../../shared/api-types';
import { CacheModel } from '../../electron/model/cache-model';
import {
  CHAIN_VIEW_IDLE_MS,
  ChainViews,
  MAX_CHAIN_VIEWS,
  type ChainGeneration,
} from '../../electron/model/chain-views';
import { chainExport } from '../../electron/export/chain-export';
import { batch, removed, stored } from './helpers';

const q = (over: Partial<ChainQuery> = {}): ChainQuery => ({
  sort: 'lastSeen',
  desc: true,
  offset: 0,
  limit: 100,
  ...over,
});
/** A query of view v, held. */
const held = (view: string, over: Partial<ChainQuery> = {}): ChainQuery =>
  q({ view, hold: true, ...over });

/** n one-block chains c0..c(n-1) of source a, c(i) stored at time i (the newest sorts first). */
function chains(n: number): CacheModel {
  const m = new CacheModel();
  for (let i = 0; i < n; i += 1) m.apply(batch([stored('a', i, [`c${i}`])]));
  return m;
}

const ids = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id);

describe('held chain lists', () => {
  it("keep a view's rows, in their order, while chains arrive and change", () => {
    const m = chains(5);
    expect(ids(m.chains(q({ view: 'v', limit: 2 })).rows)).toEqual(['c4', 'c3']);
    // New chains sort first live, an evicted block changes a chain's figures, and another
    // asker's query computes the chains again meanwhile.
    m.apply(batch([stored('a', 10, ['n1']), stored('b', 11, ['n2'])]));
    m.apply(batch([removed('a', 12, ['c3'])]));
    expect(ids(m.chains(q({ limit: 2 })).rows)).toEqual(['c3', 'n2']);
    const top = m.chains(held('v', { limit: 2 }));
    expect(ids(top.rows)).toEqual(['c4', 'c3']);
    expect(top.rows[1]?.residentBlocks).toBe(1);
    // Further down, past the page the view had: still the list as it was, c2, c1, c0.
    const more = m.chains(held('v', { offset: 2, limit: 5 }));
    expect(more).toMatchObject({ total: 5, offset: 2 });
    expect(ids(more.rows)).toEqual(['c2', 'c1', 'c0']);
    expect(more.renewed).toBeUndefined();
    // Live again, the view sees the chains now.
    expect(ids(m.chains(q({ view: 'v', limit: 2 })).rows)).toEqual(['c3', 'n2']);
  });

  it('hold the rows on screen when a newer live page was answered as the list was held', () => {
    const m = chains(3);
    const shown = m.chains(q({ view: 'v' }));
    m.apply(batch([stored('a', 9, ['late'])]));
    // Asked before the hold, answered after it: the screen drops it and still shows `shown`.
    expect(ids(m.chains(q({ view: 'v' })).rows)).toEqual(['late', 'c2', 'c1', 'c0']);
    const page = m.chains(held('v', { generation: shown.generation }));
    expect(ids(page.rows)).toEqual(['c2', 'c1', 'c0']);
    expect(page.generation).toBe(shown.generation);
    // Without a generation on screen, the latest live page's.
    expect(ids(m.chains(held('v')).rows)).toEqual(['late', 'c2', 'c1', 'c0']);
  });

  it('sort and filter by source and residency among their own rows', () => {
    const m = chains(3);
    m.chains(q({ view: 'v' }));
    m.apply(batch([stored('b', 20, ['late'])]));
    m.apply(batch([removed('a', 21, ['c1'])]));
    const as = (over: Partial<ChainQuery>) => ids(m.chains(held('v', over)).rows);
    expect(as({ sort: 'firstSeen', desc: false })).toEqual(['c0', 'c1', 'c2']);
    // c1 was resident when the list was held; 'late' of b is not in it.
    expect(as({ residentOnly: true })).toEqual(['c2', 'c1', 'c0']);
    expect(as({ source: 'b' })).toEqual([]);
    expect(as({ source: 'a' })).toEqual(['c2', 'c1', 'c0']);
  });

  it('are kept per view: one view holding does not move another', () => {
    const m = chains(2);
    m.chains(q({ view: 'a' }));
    m.apply(batch([stored('a', 5, ['x'])]));
    m.chains(q({ view: 'b' }));
    m.apply(batch([stored('a', 6, ['y'])]));
    expect(ids(m.chains(held('a')).rows)).toEqual(['c1', 'c0']);
    expect(ids(m.chains(held('b')).rows)).toEqual(['x', 'c1', 'c0']);
  });

  it('answer another hash filter with the chains now, then hold those', () => {
    const m = chains(12);
    m.chains(q({ view: 'v' }));
    m.apply(batch([stored('a', 20, ['c100'])]));
    const found = m.chains(held('v', { hash: 'c1' }));
    expect(ids(found.rows)).toEqual(['c100', 'c11', 'c10', 'c1']);
    expect(found.renewed).toBeUndefined();
    m.apply(batch([stored('a', 21, ['c101'])]));
    expect(ids(m.chains(held('v', { hash: 'c1' })).rows)).toEqual(['c100', 'c11', 'c10', 'c1']);
  });

  it('say so when a view held was forgotten, and hold the chains now', () => {
    const m = chains(2);
    for (let i = 0; i <= MAX_CHAIN_VIEWS; i += 1) m.chains(q({ view: `v${i}` }));
    m.apply(batch([stored('a', 9, ['new'])]));
    // v0 was the least recently used of one view too many.
    const page = m.chains(held('v0'));
    expect(page.renewed).toBe(true);
    expect(ids(page.rows)).toEqual(['new', 'c1', 'c0']);
    expect(m.chains(held(`v${MAX_CHAIN_VIEWS}`)).renewed).toBeUndefined();
  });

  it('are what an export of the held list writes', () => {
    const m = chains(3);
    m.chains(q({ view: 'v' }));
    m.apply(batch([stored('a', 9, ['after'])]));
    const filter = { sort: 'lastSeen', desc: true, view: 'v', hold: true } as const;
    const doc = JSON.parse([...chainExport(m, filter, 'json', (s) => s)].join('')) as {
      chains: { chain_id: string }[];
    };
    expect(doc.chains.map((c) => c.chain_id)).toEqual(['c2', 'c1', 'c0']);
    // The filter stated is the view's, without its id.
    expect((doc as unknown as { filter: object }).filter).toEqual({
      sort: 'lastSeen',
      desc: true,
      held: true,
    });
  });

  it('refuse an export of a held list the service no longer keeps, and keep nothing for it', () => {
    const m = chains(3);
    const filter = { sort: 'lastSeen', desc: true, view: 'gone', hold: true } as const;
    expect(() => chainExport(m, filter, 'csv', (s) => s)).toThrow(/no longer kept/);
    // The screen's own next page still learns that its list was forgotten.
    expect(m.chains(held('gone')).renewed).toBe(true);
  });
});

describe('ChainViews', () => {
  const gen = (version: number): ChainGeneration => ({ version, hash: '', rows: [] });

  it('keeps at most MAX_CHAIN_VIEWS, forgetting the least recently used', () => {
    const v = new ChainViews(() => 0);
    for (let i = 0; i < MAX_CHAIN_VIEWS; i += 1) v.set(`v${i}`, gen(i));
    // v0 is used again: v1 is now the least recently used.
    expect(v.get('v0')?.version).toBe(0);
    v.set('one more', gen(99));
    expect(v.size).toBe(MAX_CHAIN_VIEWS);
    expect(v.get('v0')?.version).toBe(0);
    expect(v.get('v1')).toBeUndefined();
  });

  it('forgets a view unused for CHAIN_VIEW_IDLE_MS; a use keeps it', () => {
    let now = 0;
    const v = new ChainViews(() => now);
    v.set('a', gen(1));
    v.set('b', gen(2));
    now = CHAIN_VIEW_IDLE_MS - 1;
    expect(v.get('b')?.version).toBe(2);
    now = CHAIN_VIEW_IDLE_MS + 1;
    expect(v.get('a')).toBeUndefined();
    expect(v.get('b')?.version).toBe(2);
    expect(v.size).toBe(1);
  });

  it("keeps a view's two latest generations, the latest unless the other is asked for", () => {
    const v = new ChainViews(() => 0);
    const one = gen(1);
    v.set('a', one);
    v.set('a', gen(2));
    // The same generation again (no block since) keeps the one before it.
    const three = gen(3);
    v.set('a', three);
    v.set('a', three);
    expect(v.size).toBe(1);
    expect(v.get('a')?.version).toBe(3);
    expect(v.get('a', 2)?.version).toBe(2);
    expect(v.get('a', 1)?.version).toBe(3);
    expect(v.get('a', 3)?.version).toBe(3);
    v.set('b', one);
    expect(v.get('b', 1)).toBe(one);
  });
});
