// A block's store and removal times: two columns each until a third of either, then a ring from a
// pool that grows and is reused as ids are released. Checked against plain arrays of every time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HISTORY_LEN } from '../../electron/model/block-node';
import { NodeTable } from '../../electron/model/node-table';

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
            id = table.alloc(ts, 0, 16);
            ids.set(o.key, id);
            truth.set(o.key, { stored: [], removed: [] });
          }
          const t = truth.get(o.key)!;
          if (o.t === 'store') {
            table.timesStored[id] = (table.timesStored[id] as number) + 1;
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
});
