// A ghost order packs in place and takes at most a quarter more slots than its capacity (it took
// twice as many, and a new set of arrays at every pack); its entries and their distances stay
// exact. Holdings keep their per-id info in pages: ids past the first page keep theirs too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GhostOrder, maxGhostSlots } from '../../electron/analysis/ghost-order';
import { Holdings } from '../../electron/analysis/holdings';
import { holdersOf } from './helpers';

describe('a full ghost order', () => {
  it('stays within a quarter more slots than its capacity, exact like a plain list', () => {
    const capacity = 1000;
    fc.assert(
      fc.property(
        fc.array(fc.record({ take: fc.nat(9), h: fc.nat(3 * capacity) }), {
          minLength: 5000,
          maxLength: 8000,
        }),
        (ops) => {
          const ids = new Holdings();
          for (let h = 0; h <= 3 * capacity; h++) ids.intern(`${h}`);
          const g = new GhostOrder(capacity, ids);
          const list: number[] = [];
          let t = 0;
          for (const o of ops) {
            const i = list.indexOf(o.h);
            if (o.take === 0) {
              // A re-store: the entry leaves, its distance is the entries newer than it.
              expect(g.take(o.h)?.newer ?? null).toBe(i < 0 ? null : list.length - 1 - i);
              if (i >= 0) list.splice(i, 1);
            } else if (i < 0) {
              // A removal: the newest entry; past the capacity the oldest goes (as G spills).
              g.push(o.h, (t += 1));
              list.push(o.h);
              if (list.length > capacity) expect(g.popOldest()?.id).toBe(list.shift());
            }
            expect(g.slotCount).toBeLessThanOrEqual(maxGhostSlots(capacity));
          }
          expect([...g.entries()]).toEqual(list);
        },
      ),
      { numRuns: 10 },
    );
  });
});

describe('holdings past the first page of ids', () => {
  it('keep each id its holders, depth and ghost slot, and recycle ids as before', () => {
    const h = new Holdings();
    const n = 150_000;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = h.intern(`${1_000_000_007 * i}`);
      ids.push(id);
      h.add(id, i % 3);
      if (i % 2 === 0) h.add(id, 3);
      h.keepDepth(id, i % 1000);
    }
    expect(ids.reduce((a, b) => Math.max(a, b), 0)).toBeGreaterThan(2 * 65_536);
    const g = new GhostOrder(n, h);
    for (let i = 0; i < n; i += 5) {
      h.ghostIn(ids[i] as number);
      g.push(ids[i] as number, i);
    }
    for (let i = 0; i < n; i += 7919) {
      const id = ids[i] as number;
      expect(h.find(`${1_000_000_007 * i}`)).toBe(id);
      expect(holdersOf(h, id)).toEqual(i % 2 === 0 ? [i % 3, 3] : [i % 3]);
      expect(h.depthOf(id)).toBe(i % 1000);
      expect(h.inGhosts(id)).toBe(i % 5 === 0);
      expect(g.has(id)).toBe(i % 5 === 0);
    }
    expect(h.sharedNow).toBe(n / 2);
    // Every holder goes: the ids in no G are recycled, those in G stay.
    for (let i = 0; i < n; i++) {
      h.remove(ids[i] as number, i % 3);
      h.remove(ids[i] as number, 3);
    }
    expect(h.sharedNow).toBe(0);
    expect(h.find(`${1_000_000_007 * 1}`)).toBe(-1);
    expect(h.find(`${1_000_000_007 * 5}`)).toBe(ids[5]);
    expect(g.take(ids[5] as number)?.newer).toBe(n / 5 - 2);
  });
});
