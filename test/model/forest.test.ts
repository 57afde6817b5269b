import { describe, expect, it } from 'vitest';
import { Forest } from '../../electron/model/forest';

const leaves = (f: Forest): string[] => [...f.leaves].map((n) => n.hash).sort();

describe('forest links', () => {
  it('counts children on known parents and keeps the count of a forgotten parent for its return', () => {
    const f = new Forest(0);
    const p = f.store('p', null, 1, 'GPU', 16);
    f.store('c1', 'p', 1, 'GPU', 16, p);
    f.store('c2', 'p', 1, 'GPU', 16);
    expect(f.children('p')).toBe(2);
    expect(leaves(f)).toEqual(['c1', 'c2']);
    // p resident nowhere, cap 0: forgotten at once; its children still name it.
    f.addHolder(p, 0);
    f.removeHolder(p, 0, false, 2);
    expect(f.get('p')).toBeUndefined();
    expect(f.children('p')).toBe(2);
    // Stored again, p takes its children back and is no leaf.
    f.store('p', null, 3, 'GPU', 16);
    expect(f.children('p')).toBe(2);
    expect(leaves(f)).toEqual(['c1', 'c2']);
  });

  it('turns a parent back into a leaf when its last child moves to another parent', () => {
    const f = new Forest();
    f.store('a', null, 1, 'GPU', 16);
    f.store('b', null, 1, 'GPU', 16);
    f.store('x', 'a', 1, 'GPU', 16);
    expect(leaves(f)).toEqual(['b', 'x']);
    f.store('x', 'b', 2, 'GPU', 16);
    expect(f.children('a')).toBe(0);
    expect(f.children('b')).toBe(1);
    expect(leaves(f)).toEqual(['a', 'x']);
  });
});
