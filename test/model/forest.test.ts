import { describe, expect, it } from 'vitest';
import { HISTORY_LEN } from '../../electron/model/block-node';
import { Forest } from '../../electron/model/forest';

const leaves = (f: Forest): string[] => [...f.leaves()].map((id) => f.view(id).hash).sort();

describe('forest links', () => {
  it('counts children on known parents and keeps the count of a forgotten parent for its return', () => {
    const f = new Forest(0);
    const gpu = f.mediumId('GPU');
    const p = f.storeKey('p', null, 1, gpu, 16);
    f.storeKey('c1', 'p', 1, gpu, 16, p);
    f.storeKey('c2', 'p', 1, gpu, 16);
    expect(f.children('p')).toBe(2);
    expect(leaves(f)).toEqual(['c1', 'c2']);
    // p resident nowhere, cap 0: forgotten at once; its children still name it.
    f.addHolder(p, 0);
    f.removeHolder(p, 0, false, 2);
    expect(f.get('p')).toBeUndefined();
    expect(f.children('p')).toBe(2);
    // Stored again, p takes its children back and is no leaf.
    f.storeKey('p', null, 3, gpu, 16);
    expect(f.children('p')).toBe(2);
    expect(leaves(f)).toEqual(['c1', 'c2']);
  });

  it("keeps a known block's parent when a later store names another: a hash names its prefix", () => {
    const f = new Forest();
    const gpu = f.mediumId('GPU');
    f.storeKey('a', null, 1, gpu, 16);
    f.storeKey('b', null, 1, gpu, 16);
    f.storeKey('x', 'a', 1, gpu, 16);
    f.storeKey('x', 'b', 2, gpu, 16);
    expect(f.get('x')?.parent).toBe('a');
    expect(f.children('a')).toBe(1);
    expect(f.children('b')).toBe(0);
    expect(leaves(f)).toEqual(['b', 'x']);
    // A store naming no parent forgets none; one naming a parent for the first time teaches it.
    f.storeKey('x', null, 3, gpu, 16);
    expect(f.get('x')?.parent).toBe('a');
    f.storeKey('y', null, 3, gpu, 16);
    f.storeKey('y', 'b', 4, gpu, 16);
    expect(f.get('y')?.parent).toBe('b');
    expect(leaves(f)).toEqual(['x', 'y']);
  });

  it('never closes a cycle, whether the parent comes after its child or is learnt late', () => {
    const f = new Forest();
    const gpu = f.mediumId('GPU');
    // b names a (not known yet) as parent; then a is stored naming b: a -> b -> a would be a loop.
    f.storeKey('b', 'a', 1, gpu, 16);
    f.storeKey('a', 'b', 2, gpu, 16);
    expect(f.get('a')?.parent).toBeNull();
    expect(f.get('b')?.parent).toBe('a');
    expect(f.path('b').map((id) => f.view(id).hash)).toEqual(['a', 'b']);
    // c is a root known first; later a store names c's own descendant d as c's parent.
    f.storeKey('c', null, 3, gpu, 16);
    const c = f.idOf('c');
    f.storeKey('d', 'c', 3, gpu, 16, c);
    f.storeKey('c', 'd', 4, gpu, 16);
    expect(f.get('c')?.parent).toBeNull();
    expect(f.path('d').map((id) => f.view(id).hash)).toEqual(['c', 'd']);
  });
});

describe('forest storage', () => {
  it('gives a forgotten block its id back with none of its fields: the next block starts fresh', () => {
    const f = new Forest(1);
    const cpu = f.mediumId('CPU');
    const a = f.storeKey('a', 'root', 1, cpu, 16);
    f.addHolder(a, 3);
    f.removeHolder(a, 3, false, 4);
    const b = f.storeKey('b', null, 5, f.mediumId(null), 32);
    f.addHolder(b, 0);
    f.removeHolder(b, 0, false, 6);
    // Cap 1: a (the older) is forgotten, and its parent's count of children goes with it.
    expect(f.get('a')).toBeUndefined();
    expect(f.children('root')).toBe(0);
    const c = f.storeKey('c', null, 7, f.mediumId(null), 8);
    expect(c).toBe(a);
    expect(f.get('c')).toEqual({
      hash: 'c',
      parent: null,
      firstStored: 7,
      medium: null,
      tokens: 8,
      timesStored: 1,
      timesRemoved: 0,
      restores: 0,
      storedAt: [7],
      removedAt: [],
      lastStore: 7,
      lastSeen: 7,
      lastLifetime: null,
      holders: 0,
      srcMask: 0,
      seenMask: 0,
      children: 0,
    });
    expect(f.get('b')).toMatchObject({ removedAt: [6], lastLifetime: 1, seenMask: 1 });
  });

  it('keeps the newest store and removal times of a block, oldest first, past the history length', () => {
    const f = new Forest();
    const gpu = f.mediumId('GPU');
    const rounds = HISTORY_LEN + 3;
    for (let i = 1; i <= rounds; i += 1) {
      const id = f.storeKey('x', null, i * 10, gpu, 16);
      f.addHolder(id, 0);
      f.removeHolder(id, 0, false, i * 10 + 5);
    }
    const x = f.get('x');
    const kept = Array.from({ length: HISTORY_LEN }, (_, i) => (rounds - HISTORY_LEN + 1 + i) * 10);
    expect(x?.storedAt).toEqual(kept);
    expect(x?.removedAt).toEqual(kept.map((t) => t + 5));
    expect(x?.timesStored).toBe(rounds);
    expect(x?.restores).toBe(rounds - 1);
  });

  it('grows past its first capacity and keeps every field of every block', () => {
    const f = new Forest();
    const gpu = f.mediumId('GPU');
    let prev = f.storeKey('h0', null, 0, gpu, 16);
    for (let i = 1; i < 5000; i += 1) prev = f.storeKey(`h${i}`, `h${i - 1}`, i, gpu, 16, prev);
    expect(f.size).toBe(5000);
    expect(leaves(f)).toEqual(['h4999']);
    expect(f.get('h1234')).toMatchObject({ parent: 'h1233', firstStored: 1234, children: 1 });
    expect(f.path('h4999')).toHaveLength(5000);
  });
});
