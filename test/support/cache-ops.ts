// Random operations on a model and an analysis for property tests: batches of stored, removed
// and cleared events over few hashes and sources (so ids are let go and handed out again), with
// restarts and removed sources among them.
import fc from 'fast-check';
import type { KvEvent } from '../../shared/events';
import { cleared, removed, stored } from '../analysis/helpers';

export const HASHES = [
  ...Array.from({ length: 24 }, (_, i) => `${2n ** 64n - 1n - BigInt(i) * 7n}`),
  ...Array.from({ length: 6 }, (_, i) => `${i}`),
  'ab01',
  'ab02',
];
const SOURCES = ['s0', 's1', 's2'];
const hash = fc.constantFrom(...HASHES);
const medium = fc.constantFrom<string | null>('GPU', 'CPU', null);
const event: fc.Arbitrary<KvEvent> = fc.oneof(
  {
    arbitrary: fc
      .record({
        hs: fc.array(hash, { minLength: 1, maxLength: 5 }),
        parent: fc.option(hash),
        medium,
      })
      .map((o) => stored(o.hs, { parent: o.parent, medium: o.medium })),
    weight: 5,
  },
  {
    arbitrary: fc
      .record({ hs: fc.array(hash, { minLength: 1, maxLength: 5 }), medium })
      .map((o) => removed(o.hs, o.medium)),
    weight: 4,
  },
  { arbitrary: fc.constant(cleared()), weight: 1 },
);
export type Op =
  | { k: 'batch'; source: string; events: KvEvent[] }
  | { k: 'reset'; source: string }
  | { k: 'remove'; source: string };
export const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      k: fc.constant('batch' as const),
      source: fc.constantFrom(...SOURCES),
      events: fc.array(event, { minLength: 1, maxLength: 6 }),
    }),
    weight: 20,
  },
  {
    arbitrary: fc.record({ k: fc.constant('reset' as const), source: fc.constantFrom(...SOURCES) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('remove' as const),
      source: fc.constantFrom(...SOURCES),
    }),
    weight: 1,
  },
);
