import { describe, expect, it } from 'vitest';
import { CacheAnalysis } from '../../electron/analysis/cache-analysis';
import { Holdings } from '../../electron/analysis/holdings';
import { batch, cleared, holdersOf, removed, stored } from './helpers';

describe('hash ids of the analysis', () => {
  it('recycles the id of a hash no source holds and no G keeps, so ids stay as many as the hashes tracked', () => {
    // G of 4 exact entries (and a sampled tail of 4) per source: what falls off gives its id back.
    const a = new CacheAnalysis({ ghostExactCap: 4, ghostTailCap: 4 });
    // 10,000 distinct hashes through two sources, never more than 8 held at once.
    for (let i = 0; i < 10_000; i += 4) {
      const hs = [0, 1, 2, 3].map((j) => `h${i + j}`);
      a.apply(batch('s1', i, [stored(hs)]));
      a.apply(batch('s2', i, [stored(hs)]));
      a.apply(batch('s1', i + 0.5, [removed(hs)]));
      a.apply(batch('s2', i + 0.5, [removed(hs)]));
    }
    expect(a.holdings.idLimit).toBeLessThanOrEqual(8 + 2 * (4 + 5));
    const r = a.report();
    expect(r.totals.newStores).toBe(20_000);
    expect(r.crossSource.duplicateStores).toBe(10_000);
    expect(r.crossSource.sharedBlocksNow).toBe(0);
  });

  it('gives a recycled id no trace of the hash it named before', () => {
    const h = new Holdings();
    const first = h.intern('old');
    h.add(first, 0);
    h.add(first, 1);
    h.keepDepth(first, 7);
    h.remove(first, 0);
    h.remove(first, 1);
    expect(h.find('old')).toBe(-1);
    const again = h.intern('new');
    expect(again).toBe(first);
    expect(holdersOf(h, again)).toEqual([]);
    expect(h.heldByOther(again, 0)).toBe(false);
    expect(h.depthOf(again)).toBeNull();
    expect(h.sharedNow).toBe(0);
    expect(h.duplicateNow).toBe(0);
  });

  it('keeps the id of a removed hash while a G holds it, and gives it back when G lets go', () => {
    const a = new CacheAnalysis();
    a.apply(batch('s1', 1, [stored(['x', 'y'])]));
    a.apply(batch('s1', 2, [removed(['x', 'y'])]));
    const x = a.holdings.find('x');
    expect(x).toBeGreaterThanOrEqual(0);
    expect(a.holdings.inGhosts(x)).toBe(true);
    // Its re-store finds it in G through that id: one re-store, at distance 1 (y is newer).
    a.apply(batch('s1', 3, [stored(['x'])]));
    expect(a.holdings.find('x')).toBe(x);
    expect(a.holdings.inGhosts(x)).toBe(false);
    expect(a.report().whatIf[0]?.restores).toBe(1);
    // A clear empties R and G: no id is left for either hash.
    a.apply(batch('s1', 4, [cleared()]));
    expect(a.holdings.find('x')).toBe(-1);
    expect(a.holdings.find('y')).toBe(-1);
  });

  it('keeps a hash held in another medium of the same source after a clear of one frees it', () => {
    const a = new CacheAnalysis();
    a.apply(batch('s1', 1, [stored(['x'], { medium: 'GPU' }), stored(['x'], { medium: 'CPU' })]));
    a.apply(batch('s2', 2, [stored(['x'], { medium: 'GPU' })]));
    a.apply(batch('s1', 3, [cleared()]));
    // s2 still holds x: its store after the clear is a duplicate again.
    a.apply(batch('s1', 4, [stored(['x'], { medium: 'GPU' })]));
    const r = a.report();
    expect(r.crossSource.duplicateStores).toBe(2);
    expect(r.crossSource.sharedBlocksNow).toBe(1);
  });

  it('counts ghost references past the 255 its word holds, and keeps the id until the last goes', () => {
    const h = new Holdings();
    const id = h.intern('1234');
    h.add(id, 0);
    h.keepDepth(id, 5);
    for (let i = 0; i < 300; i++) h.ghostIn(id);
    h.remove(id, 0);
    expect(h.depthOf(id)).toBeNull();
    for (let i = 0; i < 299; i++) {
      h.ghostOut(id);
      if (!h.inGhosts(id) || h.find('1234') !== id) expect(i).toBe('still held by a G');
    }
    h.ghostOut(id);
    expect(h.inGhosts(id)).toBe(false);
    expect(h.find('1234')).toBe(-1);
  });

  it('keeps a depth beside the ghost references, saturating at 16,777,214 blocks', () => {
    const h = new Holdings();
    const id = h.intern('99');
    h.add(id, 0);
    for (let i = 0; i < 200; i++) h.ghostIn(id);
    h.keepDepth(id, 2 ** 30);
    expect(h.depthOf(id)).toBe(2 ** 24 - 2);
    h.keepDepth(id, 3);
    expect(h.depthOf(id)).toBe(2 ** 24 - 2);
    expect(h.inGhosts(id)).toBe(true);
    for (let i = 0; i < 200; i++) h.ghostOut(id);
    expect(h.inGhosts(id)).toBe(false);
    expect(h.depthOf(id)).toBe(2 ** 24 - 2);
  });
  it('writes the holders of a hash into a reused array and counts them, stale entries past the count', () => {
    const h = new Holdings();
    const many = h.intern('many');
    for (const slot of [9, 2, 17]) h.add(many, slot);
    const one = h.intern('one');
    h.add(one, 5);
    const out: number[] = [];
    expect(h.holdersInto(many, out)).toBe(3);
    expect(out).toEqual([2, 9, 17]);
    // The next hash's holders overwrite the start; what lies past the count is the last call's.
    expect(h.holdersInto(one, out)).toBe(1);
    expect(out.slice(0, 1)).toEqual([5]);
    expect(h.holdersInto(h.intern('none'), out)).toBe(0);
  });
});
