import { describe, expect, it } from 'vitest';
import type { ChainQuery } from '../../shared/api-types';
import { CacheModel } from '../../electron/model/cache-model';
import { MAX_HASH_MATCHES, MAX_MATCH_CHAINS } from '../../shared/limits';
import { batch, cleared, removed, stored } from './helpers';

const BIG = '18446744073709551615'; // 0xffffffffffffffff
const q = (over: Partial<ChainQuery> = {}): ChainQuery => ({
  sort: 'depth',
  desc: true,
  offset: 0,
  limit: 100,
  ...over,
});

/** Two chains sharing the root prefix r1-r2: r1-r2-x1-x2 (source a) and r1-r2-y1 (a, then b). */
function forest(): CacheModel {
  const m = new CacheModel();
  m.apply(batch([stored('a', 10, ['r1', 'r2'])]));
  m.apply(batch([stored('a', 11, ['x1', 'x2'], 'r2')]));
  m.apply(batch([stored('a', 12, ['y1'], 'r2', 'CPU')]));
  m.apply(batch([stored('b', 13, [BIG], null)]));
  m.apply(batch([removed('a', 14, ['x2'])]));
  m.apply(batch([stored('a', 15, ['x2'], 'x1')])); // re-store
  m.apply(batch([removed('a', 16, ['y1'], 'CPU')]));
  return m;
}

describe('chains', () => {
  it('lists one chain per leaf with depth, tokens, residency, restores and sources', () => {
    const page = forest().chains(q());
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.id)).toEqual(['x2', 'y1', BIG]);
    expect(page.rows[0]).toEqual({
      id: 'x2',
      root: 'r1',
      leaf: 'x2',
      depthBlocks: 4,
      depthTokens: 64,
      residentBlocks: 4,
      evictedBlocks: 0,
      restores: 1,
      sources: ['a'],
      firstSeen: 10,
      lastSeen: 15,
    });
    expect(page.rows[1]).toMatchObject({ residentBlocks: 2, evictedBlocks: 1, lastSeen: 16 });
  });

  it('leaves a removed source out of the chains: what only it stored is gone, not evicted', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['a1', 'a2'])]));
    m.apply(batch([stored('a', 11, ['a3'], 'a2')]));
    m.apply(batch([removed('a', 12, ['a3'])]));
    m.apply(batch([stored('a', 12, ['s1'])]));
    m.apply(batch([stored('b', 13, ['s1', 'b1'])]));
    m.apply(batch([stored('b', 13, ['b2'])]));
    expect(m.chains(q()).total).toBe(3);
    m.removeSource('a');
    const page = m.chains(q());
    // a1-a2-a3 (a3 evicted before) were a's alone: forgotten. s1, b's too, stays under b alone.
    expect(page.rows.map((r) => [r.id, r.sources, r.evictedBlocks])).toEqual([
      ['b1', ['b'], 0],
      ['b2', ['b'], 0],
    ]);
    expect(page.total).toBe(2);
    expect(m.chain('a2')).toBeNull();
    expect(m.chains(q({ source: 'a' })).total).toBe(0);
  });

  it("links none of an offload tier's store (no parent, no tokens) and counts no recompute for it", () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['r', 'p', 'q'])]));
    m.apply(batch([stored('a', 10, ['u', 'v'])]));
    m.apply(batch([removed('a', 11, ['q', 'v', 'p'])]));
    // vLLM's offloading connector: the blocks it moved to CPU, leaf first and mixed across requests.
    const offload = stored('a', 11, ['q', 'v', 'p'], null, 'CPU');
    if (offload.event.type === 'BlockStored') offload.event.token_count = 0;
    m.apply(batch([offload]));
    const chains = m.chains(q()).rows.map((r) => [r.id, r.depthBlocks]);
    expect(chains).toEqual([
      ['q', 3],
      ['v', 2],
    ]);
    expect(m.chain('p')?.blocks.map((b) => b.hash)).toEqual(['r', 'p']);
    // The offload moved q, v and p: nothing was recomputed. A GPU store of v after the CPU lost it is.
    expect(m.chains(q()).rows.map((r) => r.restores)).toEqual([0, 0]);
    m.apply(batch([removed('a', 12, ['v'], 'CPU')]));
    m.apply(batch([stored('a', 13, ['v'], 'u')]));
    expect(m.chains(q()).rows.map((r) => [r.id, r.restores])).toEqual([
      ['q', 0],
      ['v', 1],
    ]);
  });

  it('sorts by every key in both directions and pages', () => {
    const m = forest();
    expect(m.chains(q({ sort: 'depth', desc: false })).rows.map((r) => r.id)).toEqual([
      BIG,
      'y1',
      'x2',
    ]);
    expect(m.chains(q({ sort: 'lastSeen' })).rows.map((r) => r.id)).toEqual(['y1', 'x2', BIG]);
    expect(m.chains(q({ sort: 'firstSeen', desc: false })).rows[0]?.id).toBe('x2');
    expect(m.chains(q({ sort: 'restores' })).rows[0]?.id).toBe('x2');
    expect(m.chains(q({ sort: 'evicted' })).rows[0]?.id).toBe('y1');
    expect(m.chains(q({ sort: 'resident' })).rows[0]?.id).toBe('x2');
    expect(m.chains(q({ sort: 'sources', desc: false })).rows.map((r) => r.sources.length)).toEqual(
      [1, 1, 1],
    );
    const page = m.chains(q({ offset: 1, limit: 1 }));
    expect(page).toMatchObject({ total: 3, offset: 1 });
    expect(page.rows.map((r) => r.id)).toEqual(['y1']);
  });

  it('filters by a hash prefix anywhere on the chain, decimal or hex, by source and by residency', () => {
    const m = forest();
    expect(
      m
        .chains(q({ hash: 'r2' }))
        .rows.map((r) => r.id)
        .sort(),
    ).toEqual(['x2', 'y1']);
    expect(m.chains(q({ hash: 'y' })).rows.map((r) => r.id)).toEqual(['y1']);
    expect(m.chains(q({ hash: '1844674407' })).rows.map((r) => r.id)).toEqual([BIG]);
    expect(m.chains(q({ hash: '0xFFFFFFFFFFFFFFFF' })).rows.map((r) => r.id)).toEqual([BIG]);
    expect(m.chains(q({ source: 'b' })).rows.map((r) => r.id)).toEqual([BIG]);
    expect(m.chains(q({ source: 'nobody' })).total).toBe(0);
    m.apply(batch([cleared('b', 20)]));
    expect(
      m
        .chains(q({ residentOnly: true }))
        .rows.map((r) => r.id)
        .sort(),
    ).toEqual(['x2', 'y1']);
  });

  it('takes a source with resident only as the chains that source holds now, as its Sources column says', () => {
    const m = new CacheModel();
    // Chain c stored by a and b, then a removed it: b alone holds it now.
    m.apply(batch([stored('a', 1, ['c1', 'c2'])]));
    m.apply(batch([stored('b', 2, ['c1', 'c2'])]));
    m.apply(batch([removed('a', 3, ['c1', 'c2'])]));
    expect(m.chains(q({ source: 'a' })).rows.map((r) => r.id)).toEqual(['c2']);
    expect(m.chains(q({ source: 'a', residentOnly: true })).total).toBe(0);
    const held = m.chains(q({ source: 'b', residentOnly: true })).rows;
    expect(held.map((r) => [r.id, r.sources])).toEqual([['c2', ['b']]]);
  });

  it('says where a chain stands in the order asked, outside the page too, and not when filtered out', () => {
    const m = forest();
    // Depth descending: x2, y1, BIG; ascending: BIG, y1, x2.
    expect(m.chains(q({ locate: 'x2', offset: 2, limit: 1 }))).toMatchObject({ located: 0 });
    expect(m.chains(q({ locate: 'x2', desc: false, limit: 1 })).located).toBe(2);
    expect(m.chains(q({ locate: 'x2', source: 'b' })).located).toBeUndefined();
    expect(m.chains(q({ locate: 'nothing' })).located).toBeUndefined();
    expect(m.chains(q()).located).toBeUndefined();
  });

  it('returns a chain root first with each block history', () => {
    const d = forest().chain('x2');
    expect(d?.blocks.map((b) => b.hash)).toEqual(['r1', 'r2', 'x1', 'x2']);
    expect(d?.blocks[3]).toEqual({
      hash: 'x2',
      parent: 'x1',
      resident: true,
      timesStored: 2,
      timesRemoved: 1,
      storedAt: [11, 15],
      removedAt: [14],
      lastLifetimeSec: 3,
      medium: 'GPU',
      sources: ['a'],
      tokens: 16,
    });
    expect(forest().chain('unknown')).toBeNull();
  });

  it('searches known blocks by prefix with the chains through them', () => {
    const m = forest();
    const hits = m.search('r2');
    expect(hits).toHaveLength(1);
    expect(hits[0]?.chainIds.sort()).toEqual(['x2', 'y1']);
    expect(m.search('0xffffffffffffffff').map((h) => h.hash)).toEqual([BIG]);
    expect(m.search('  ')).toEqual([]);
  });

  it('counts every chain through a matching block past the ones it lists, and finds 50 at most', () => {
    const m = new CacheModel();
    // One root and 30 leaves under it: 30 chains through the root.
    m.apply(batch([stored('a', 1, ['7000'])]));
    for (let i = 0; i < 30; i++) m.apply(batch([stored('a', 2, [`${8000 + i}`], '7000')]));
    const [root] = m.search('7000');
    expect(root?.chainIds).toHaveLength(MAX_MATCH_CHAINS);
    expect(root?.chainCount).toBe(30);
    for (let i = 0; i < 70; i++) m.apply(batch([stored('b', 3, [`${9000 + i}`])]));
    expect(m.search('9')).toHaveLength(MAX_HASH_MATCHES);
  });

  it('forgets the oldest evicted blocks past the cap and turns their parents into leaves', () => {
    const m = new CacheModel({ evictedCap: 2 });
    m.apply(batch([stored('a', 1, ['p', 'c1'])]));
    m.apply(batch([removed('a', 2, ['c1'])]));
    m.apply(batch([stored('a', 3, ['d1', 'd2', 'd3'])]));
    m.apply(batch([removed('a', 4, ['d1', 'd2', 'd3'])]));
    expect(m.block('c1')).toBeUndefined();
    expect(m.block('d1')).toBeUndefined();
    expect(m.forgottenBlocks()).toBe(2);
    expect(
      m
        .chains(q())
        .rows.map((r) => r.id)
        .sort(),
    ).toEqual(['d3', 'p']);
    // d3 stays a chain of its own, its forgotten ancestors cut off.
    expect(m.chain('d3')?.blocks.map((b) => b.hash)).toEqual(['d2', 'd3']);
  });

  it('lists search hits in the order the blocks became known, also when a forgotten block id is reused', () => {
    const m = new CacheModel({ evictedCap: 2 });
    m.apply(batch([stored('a', 1, ['91', '92', '93'])]));
    m.apply(batch([removed('a', 2, ['91', '92', '93'])]));
    // 91 is forgotten past the cap; 94 takes the place it held in the forest's columns.
    m.apply(batch([stored('a', 3, ['94'])]));
    expect(m.block('91')).toBeUndefined();
    expect(m.search('9').map((h) => h.hash)).toEqual(['92', '93', '94']);
    expect(m.search('94')).toEqual([
      { hash: '94', resident: true, chainIds: ['94'], chainCount: 1 },
    ]);
    expect(m.block('92')).toMatchObject({ holders: 0, removedAt: [2], lastLifetime: 1 });
  });
});

describe('event ring', () => {
  it('keeps only the newest N events, newest first, filtered by type, source and hash', () => {
    const m = new CacheModel({ ringSize: 5 });
    for (let i = 0; i < 8; i += 1) m.apply(batch([stored(i % 2 ? 'a' : 'b', i, [`h${i}`])]));
    m.apply(batch([removed('a', 9, ['h7'])]));
    const all = m.events({ offset: 0, limit: 10 });
    expect(all.total).toBe(5);
    expect(all.rows.map((r) => r.n)).toEqual([8, 7, 6, 5, 4]);
    expect(
      m.events({ types: ['BlockRemoved'], offset: 0, limit: 10 }).rows.map((r) => r.n),
    ).toEqual([8]);
    expect(m.events({ source: 'b', offset: 0, limit: 10 }).rows.map((r) => r.n)).toEqual([6, 4]);
    expect(m.events({ hash: 'h7', offset: 0, limit: 10 }).rows.map((r) => r.n)).toEqual([8, 7]);
    const page = m.events({ offset: 1, limit: 2 });
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.n)).toEqual([7, 6]);
    expect(m.kpis().events).toBe(9);
  });
});
