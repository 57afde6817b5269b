// The forest keeps no text per block: a block's hash is its shared id's, a parent's is kept as the
// two numbers of a decimal (text only for other hashes). Fed the same stream under u64 decimals
// and under text keys, two forests must agree on every block, parent, child count, leaf and path,
// through forgetting (orphans) and stores again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Forest } from '../../electron/model/forest';

// A small universe so that parents repeat, are forgotten and come back.
const decimal = (k: number): string => `${18446744073709551615n - BigInt(k) * 7919n}`;
const text = (k: number): string => `h${k}`;
const op = fc.oneof(
  fc.record({
    t: fc.constant('store' as const),
    k: fc.nat(30),
    parent: fc.option(fc.nat(30), { nil: null }),
    src: fc.nat(2),
  }),
  fc.record({ t: fc.constant('remove' as const), k: fc.nat(30), src: fc.nat(2) }),
);

function feed(f: Forest, name: (k: number) => string, ops: readonly Op[]) {
  const gpu = f.mediumId('GPU');
  const held = new Set<string>();
  let ts = 0;
  for (const o of ops) {
    ts += 1;
    const h = name(o.k);
    const key = `${o.k}/${o.src}`;
    if (o.t === 'store') {
      const id = f.storeKey(h, o.parent === null ? null : name(o.parent), ts, gpu, 16);
      if (!held.has(key)) {
        held.add(key);
        f.addHolder(id, o.src);
      }
    } else if (held.has(key)) {
      held.delete(key);
      f.removeHolder(f.idOf(h), o.src, false, ts);
    }
  }
}

type Op =
  | { t: 'store'; k: number; parent: number | null; src: number }
  | { t: 'remove'; k: number; src: number };

describe('a forest keyed by u64 decimals', () => {
  it('agrees with one keyed by text on every block, parent, child count, leaf and path', () => {
    fc.assert(
      fc.property(fc.nat(6), fc.array(op, { maxLength: 300 }), (cap, ops) => {
        const byDecimal = new Forest(cap);
        const byText = new Forest(cap);
        feed(byDecimal, decimal, ops as Op[]);
        feed(byText, text, ops as Op[]);
        const back = new Map<string, string>();
        for (let k = 0; k <= 30; k++) back.set(decimal(k), text(k));
        const asText = (h: string | null): string | null =>
          h === null ? null : (back.get(h) ?? h);
        expect(byDecimal.size).toBe(byText.size);
        for (let k = 0; k <= 30; k++) {
          const d = byDecimal.get(decimal(k));
          const t = byText.get(text(k));
          expect(d === undefined).toBe(t === undefined);
          expect(byDecimal.children(decimal(k))).toBe(byText.children(text(k)));
          if (d === undefined || t === undefined) continue;
          expect({ ...d, hash: asText(d.hash), parent: asText(d.parent) }).toEqual(t);
          const path = byDecimal.path(decimal(k)).map((id) => asText(byDecimal.hashOf(id)));
          expect(path).toEqual(byText.path(text(k)).map((id) => byText.hashOf(id)));
        }
        const leaves = (f: Forest, map: (h: string) => string | null) =>
          [...f.leaves()].map((id) => map(f.hashOf(id)));
        expect(leaves(byDecimal, asText)).toEqual(leaves(byText, (h) => h));
      }),
      { numRuns: 300 },
    );
  });
});
