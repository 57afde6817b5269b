import { describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { Forest } from '../../electron/model/forest';
import { batch, removed, stored } from './helpers';

// The model marks the first 31 (source, medium) resident sets in a bit column; later ones answer
// from their Set. Both must tell whether a source still holds a block in another of its media.
describe('resident sets past the slot bits', () => {
  it('keeps a source among the holders while another of its media holds the block, with and without slot bits', () => {
    const m = new CacheModel();
    // 16 sources with GPU and CPU: 32 slots; the last source's CPU slot (the 32nd) has no bit.
    const sources = Array.from({ length: 16 }, (_, i) => `s${i}`);
    for (const s of sources) {
      m.apply(batch([stored(s, 10, [`g-${s}`])]));
      m.apply(batch([stored(s, 10, [`c-${s}`], null, 'CPU')]));
    }
    for (const s of [sources[0] as string, sources[15] as string]) {
      const bit = 1 << sources.indexOf(s);
      m.apply(batch([stored(s, 11, ['x'])]));
      m.apply(batch([stored(s, 11, ['x'], null, 'CPU')]));
      m.apply(batch([removed(s, 12, ['x'])]));
      // Still in the source's CPU set: the source still holds it.
      expect((m.block('x')?.srcMask ?? 0) & bit).toBe(bit);
      expect(m.block('x')?.holders).toBe(1);
      m.apply(batch([removed(s, 13, ['x'], 'CPU')]));
      expect((m.block('x')?.srcMask ?? 0) & bit).toBe(0);
      expect(m.block('x')?.holders).toBe(0);
      // A removal of a block the set does not hold changes nothing.
      m.apply(batch([removed(s, 13, ['x'], 'CPU')]));
      expect(m.sourceStats(s).residentBlocks).toBe(2);
    }
    expect(m.kpis().residentBlocks).toBe(32);
  });
});

describe('forest parent links by id', () => {
  it('finds a parent that was forgotten and stored again under another id when its child goes', () => {
    const f = new Forest(0);
    const gpu = f.mediumId('GPU');
    const p = f.storeKey('p', null, 1, gpu, 16);
    const c = f.storeKey('c', 'p', 1, gpu, 16, p);
    f.addHolder(p, 0);
    f.removeHolder(p, 0, false, 2); // cap 0: p is forgotten, its id freed
    const q = f.storeKey('q', null, 3, gpu, 16); // takes p's old id
    expect(q).toBe(p);
    const p2 = f.storeKey('p', null, 4, gpu, 16);
    expect(p2).not.toBe(p);
    expect(f.children('p')).toBe(1);
    // A known block keeps its parent, so c leaves p only when it is forgotten (cap 0).
    f.addHolder(c, 0);
    f.removeHolder(c, 0, false, 5);
    expect(f.get('c')).toBeUndefined();
    expect(f.children('p')).toBe(0);
    expect([...f.leaves()].map((id) => f.view(id).hash)).toEqual(['q', 'p']);
  });

  it('lists leaves in the order they became leaves, a leaf keeping its place', () => {
    const f = new Forest(0);
    const gpu = f.mediumId('GPU');
    const a = f.storeKey('a', null, 1, gpu, 16);
    f.storeKey('b', null, 1, gpu, 16);
    const x = f.storeKey('x', 'a', 1, gpu, 16, a); // a is no leaf now
    f.storeKey('b', null, 2, gpu, 16); // b stays where it was
    expect([...f.leaves()].map((id) => f.view(id).hash)).toEqual(['b', 'x']);
    f.addHolder(x, 0);
    f.removeHolder(x, 0, false, 3); // cap 0: x is forgotten, a is a leaf again, last
    expect([...f.leaves()].map((id) => f.view(id).hash)).toEqual(['b', 'a']);
  });
});
