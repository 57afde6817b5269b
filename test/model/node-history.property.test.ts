// A block's store and removal times: two columns each (the first store's is firstStored) until a
// third of either, then a ring from a pool that grows and is reused as ids are released. Checked against plain arrays of every time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HISTORY_LEN } from '../../electron/model/block-node';
import { NODE_MASK, NODE_PAGE, NodeTable } from '../../electron/model/node-table';

const op = fc.oneof(
  fc.record({ t: fc.constant('store' as const), key: fc.nat(40) }),
  fc.record({ t: fc.constant('remove' as const), key: fc.nat(40) }),
  fc.record({ t: fc.constant('release' as const), key: fc.nat(40) }),
);

describe('the node table keeps the last store and removal times of each block', () => {
  it('as plain arrays of every time would, through pool growth and reuse', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const table = new NodeTable();
        const ids = new Map<number, number>();
        const truth = new Map<number, { stored: number[]; removed: number[] }>();
        let ts = 0;
        for (const o of ops) {
          ts += 1;
          let id = ids.get(o.key);
          if (o.t === 'release') {
            if (id === undefined) continue;
            table.release(id);
            ids.delete(o.key);
            truth.delete(o.key);
            continue;
          }
          if (id === undefined) {
            // A block is made known by its first store, at its time (the forest's only alloc).
            if (o.t === 'remove') continue;
            id = table.alloc(ts, 0, 16);
            ids.set(o.key, id);
            truth.set(o.key, { stored: [], removed: [] });
          }
          const t = truth.get(o.key)!;
          if (o.t === 'store') {
            const page = table.page(id);
            page.timesStored[id & NODE_MASK] = (page.timesStored[id & NODE_MASK] as number) + 1;
            table.pushStored(id, ts);
            t.stored.push(ts);
          } else {
            table.pushRemoved(id, ts);
            t.removed.push(ts);
          }
        }
        for (const [key, id] of ids) {
          const t = truth.get(key)!;
          expect(table.storeTimes(id)).toEqual(t.stored.slice(-HISTORY_LEN));
          expect(table.removeTimes(id)).toEqual(t.removed.slice(-HISTORY_LEN));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every block its fields and times across pages, ids reused in any page', () => {
    const table = new NodeTable();
    const n = 2 * NODE_PAGE + 5000;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = table.alloc(i, 0, 16);
      ids.push(id);
      table.setParent(id, i % 3 === 0 ? `ab${i}` : `${18446744073709551615n - BigInt(i)}`);
      for (let k = 0; k < 1 + (i % 4); k++) {
        const page = table.page(id);
        page.timesStored[id & NODE_MASK] = (page.timesStored[id & NODE_MASK] as number) + 1;
        table.pushStored(id, i + k);
      }
      if (i % 5 === 0) table.pushRemoved(id, i + 10);
    }
    expect(ids.reduce((a, b) => Math.max(a, b), 0)).toBe(n - 1);
    // Every tenth block released, then as many new ones take their ids back.
    for (let i = 0; i < n; i += 10) table.release(ids[i] as number);
    for (let i = 0; i < n; i += 10) {
      const id = table.alloc(-i, 0, 16);
      expect(table.hasParent(id)).toBe(false);
      expect(table.storeTimes(id)).toEqual([]);
      expect(table.page(id).firstStored[id & NODE_MASK]).toBe(-i);
    }
    for (let i = 1; i < n; i += 7) {
      if (i % 10 === 0) continue;
      const id = ids[i] as number;
      const times = Array.from({ length: 1 + (i % 4) }, (_, k) => i + k);
      expect(table.storeTimes(id)).toEqual(times);
      expect(table.removeTimes(id)).toEqual(i % 5 === 0 ? [i + 10] : []);
      expect(table.parentKey(id)).toBe(
        i % 3 === 0 ? `ab${i}` : `${18446744073709551615n - BigInt(i)}`,
      );
      expect(table.page(id).firstStored[id & NODE_MASK]).toBe(i);
    }
  });
});
