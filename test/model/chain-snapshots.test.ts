import { describe, expect, it } from 'vitest';
import type { ChainQuery } from '../../shared/api-types';
import { CacheModel } from '../../electron/model/cache-model';
import {
  CHAIN_SNAPSHOT_IDLE_MS,
  ChainSnapshots,
  MAX_CHAIN_SNAPSHOTS,
  type ChainGeneration,
} from '../../electron/model/chain-snapshots';
import { chainExport } from '../../electron/export/chain-export';
import { batch, removed, stored } from './helpers';

const q = (over: Partial<ChainQuery> = {}): ChainQuery => ({
  sort: 'lastSeen',
  desc: true,
  offset: 0,
  limit: 100,
  ...over,
});

/** n one-block chains c0..c(n-1) of source a, c(i) stored at time i (the newest sorts first). */
function chains(n: number): CacheModel {
  const m = new CacheModel();
  for (let i = 0; i < n; i += 1) m.apply(batch([stored('a', i, [`c${i}`])]));
  return m;
}

const ids = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id);

describe('held chain lists', () => {
  it('keep the rows on screen, in their order, while chains arrive and change', () => {
    const m = chains(5);
    const live = m.chains(q({ limit: 2 }));
    expect(ids(live.rows)).toEqual(['c4', 'c3']);
    const held = m.chains(q({ limit: 2, hold: true, generation: live.generation }));
    expect(ids(held.rows)).toEqual(['c4', 'c3']);
    expect(held.snapshot).toBeGreaterThan(0);
    // New chains sort first live, and an evicted block changes a chain's figures.
    m.apply(batch([stored('a', 10, ['n1']), stored('b', 11, ['n2'])]));
    m.apply(batch([removed('a', 12, ['c3'])]));
    expect(ids(m.chains(q({ limit: 2 })).rows)).toEqual(['c3', 'n2']);
    // Further down the held list is still the list that was paused: c2, c1, c0 past c4, c3.
    const more = m.chains(q({ offset: 2, limit: 5, hold: true, snapshot: held.snapshot }));
    expect(more).toMatchObject({ total: 5, offset: 2, snapshot: held.snapshot });
    expect(ids(more.rows)).toEqual(['c2', 'c1', 'c0']);
    expect(more.renewed).toBeUndefined();
    const again = m.chains(q({ limit: 2, hold: true, snapshot: held.snapshot }));
    expect(again.rows).toEqual(held.rows);
  });

  it('sort and filter by source and residency among their own rows', () => {
    const m = chains(3);
    const live = m.chains(q());
    const held = m.chains(q({ hold: true, generation: live.generation }));
    m.apply(batch([stored('b', 20, ['late'])]));
    m.apply(batch([removed('a', 21, ['c1'])]));
    const as = (over: Partial<ChainQuery>) =>
      ids(m.chains(q({ hold: true, snapshot: held.snapshot, ...over })).rows);
    expect(as({ sort: 'firstSeen', desc: false })).toEqual(['c0', 'c1', 'c2']);
    // c1 was resident when the list was held; 'late' of b is not in it.
    expect(as({ residentOnly: true })).toEqual(['c2', 'c1', 'c0']);
    expect(as({ source: 'b' })).toEqual([]);
    expect(as({ source: 'a' })).toEqual(['c2', 'c1', 'c0']);
  });

  it('hold the chains now when the rows on screen are no longer the latest computed', () => {
    const m = chains(2);
    const old = m.chains(q()).generation;
    m.apply(batch([stored('a', 5, ['new'])]));
    // Someone else's query computed the chains again since.
    m.chains(q());
    const held = m.chains(q({ hold: true, generation: old }));
    expect(ids(held.rows)).toEqual(['new', 'c1', 'c0']);
    expect(held.generation).not.toBe(old);
  });

  it('take a new snapshot for another hash filter, in place of the old one', () => {
    const m = chains(12);
    const first = m.chains(q({ hold: true, hash: 'c1' }));
    expect(ids(first.rows)).toEqual(['c11', 'c10', 'c1']);
    const second = m.chains(q({ hold: true, hash: 'c11', snapshot: first.snapshot }));
    expect(ids(second.rows)).toEqual(['c11']);
    expect(second.snapshot).not.toBe(first.snapshot);
    expect(second.renewed).toBeUndefined();
    // The first is gone: asking for it again makes a new one, and the page says so.
    const back = m.chains(q({ hold: true, hash: 'c1', snapshot: first.snapshot }));
    expect(back.renewed).toBe(true);
  });

  it('are what an export of the held list writes', () => {
    const m = chains(3);
    const held = m.chains(q({ hold: true }));
    m.apply(batch([stored('a', 9, ['after'])]));
    const text = [
      ...chainExport(
        m,
        { sort: 'lastSeen', desc: true, hold: true, snapshot: held.snapshot },
        'json',
        (s) => s,
      ),
    ].join('');
    const doc = JSON.parse(text) as { chains: { chain_id: string }[] };
    expect(doc.chains.map((c) => c.chain_id)).toEqual(['c2', 'c1', 'c0']);
  });
});

describe('ChainSnapshots', () => {
  const gen = (version: number): ChainGeneration => ({ version, hash: '', rows: [] });

  it('keeps at most MAX_CHAIN_SNAPSHOTS, dropping the least recently used', () => {
    const s = new ChainSnapshots(() => 0);
    const made = Array.from({ length: MAX_CHAIN_SNAPSHOTS }, (_, i) => s.hold(gen(i)));
    // The first is used again: the second is now the least recently used.
    expect(s.get(made[0] as number)?.version).toBe(0);
    s.hold(gen(99));
    expect(s.size).toBe(MAX_CHAIN_SNAPSHOTS);
    expect(s.has(made[0] as number)).toBe(true);
    expect(s.has(made[1] as number)).toBe(false);
  });

  it('drops a list unused for CHAIN_SNAPSHOT_IDLE_MS; a use keeps it', () => {
    let now = 0;
    const s = new ChainSnapshots(() => now);
    const a = s.hold(gen(1));
    const b = s.hold(gen(2));
    now = CHAIN_SNAPSHOT_IDLE_MS - 1;
    expect(s.get(b)?.version).toBe(2);
    now = CHAIN_SNAPSHOT_IDLE_MS + 1;
    expect(s.has(a)).toBe(false);
    expect(s.get(b)?.version).toBe(2);
    expect(s.size).toBe(1);
  });

  it('replaces a list when asked to', () => {
    const s = new ChainSnapshots(() => 0);
    const a = s.hold(gen(1));
    const b = s.hold(gen(2), a);
    expect(s.has(a)).toBe(false);
    expect(s.get(b)?.version).toBe(2);
  });
});
