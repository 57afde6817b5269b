// The state an open built (the model and the analysis), written whole and read back, so that a
// session opened again restores it instead of replaying its events (open-cache.ts).
//
// v8.serialize keeps what the state is made of (typed arrays, Maps, Sets, arrays, numbers,
// strings, shared references) but not classes: every class instance is listed beside the state
// with its class's place in STATE_CLASSES, and given its prototype back when read. A snapshot is
// only ever read by the build that wrote it (the cache keys it by the code), so a class's fields
// need no version of their own; a class missing from the list is refused when written, never
// written half. Functions cannot be written: the three fields that hold one are named here, left
// out, and set again by the owner (CacheModel.reattach).

import v8 from 'node:v8';
import { CacheAnalysis } from '../analysis/cache-analysis';
import { DistanceHistogram } from '../analysis/distance-histogram';
import { GhostList } from '../analysis/ghost-list';
import { GhostOrder } from '../analysis/ghost-order';
import { Holdings } from '../analysis/holdings';
import { HotPrefixes } from '../analysis/hot-prefixes';
import { LifetimeStats } from '../analysis/lifetime-stats';
import { ResidentSet } from '../analysis/resident-set';
import { RestoreBins } from '../analysis/restore-series';
import { BatchIds } from '../collections/batch-ids';
import { HashIds } from '../collections/hash-ids';
import { HashKeySet } from '../collections/hash-key-set';
import { IdTable } from '../collections/id-table';
import { SharedHashIds } from '../collections/shared-hash-ids';
import { BinTable } from '../model/bin-table';
import { CacheModel } from '../model/cache-model';
import { ChainViews } from '../model/chain-views';
import { EventRing } from '../model/event-ring';
import { Forest } from '../model/forest';
import { NameTable } from '../model/name-table';
import { HistoryRings, NodePage, NodeTable } from '../model/node-table';
import { OrphanCounts } from '../model/orphan-counts';
import { Residency } from '../model/residency';
import { ResidentIdSlot } from '../model/resident-id-slot';
import { ModelAndAnalysis } from './model-and-analysis';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any class, by its prototype
type Class = abstract new (...args: any[]) => object;

/** Every class the state of a model and an analysis holds an instance of; append, never reorder. */
const STATE_CLASSES: readonly Class[] = [
  CacheModel,
  CacheAnalysis,
  BinTable,
  Residency,
  ResidentIdSlot,
  Forest,
  NodeTable,
  NodePage,
  HistoryRings,
  NameTable,
  OrphanCounts,
  EventRing,
  ChainViews,
  HashIds,
  SharedHashIds,
  HashKeySet,
  IdTable,
  BatchIds,
  Holdings,
  HotPrefixes,
  LifetimeStats,
  DistanceHistogram,
  GhostList,
  GhostOrder,
  ResidentSet,
  RestoreBins,
  ModelAndAnalysis,
];

/** The fields that hold a function: left out of a snapshot, set again by reattach. */
const FUNCTION_FIELDS = new Map<object, readonly string[]>([
  [EventRing.prototype, ['readLine']],
  [ChainViews.prototype, ['now']],
  [Residency.prototype, ['makeSlot']],
]);

const classOf = new Map<object, number>(STATE_CLASSES.map((c, i) => [c.prototype as object, i]));

interface Written {
  root: unknown;
  /** Every class instance in root, and its class (an index into STATE_CLASSES). */
  instances: object[];
  classes: number[];
}

/** root (and all it reaches) as bytes; throws on a class not in STATE_CLASSES or a function. */
export function writeState(root: object): Buffer {
  const instances: object[] = [];
  const classes: number[] = [];
  const cleared: Array<[Record<string, unknown>, string, unknown]> = [];
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  try {
    while (stack.length > 0) {
      const o = stack.pop();
      if (o === null || typeof o !== 'object' || seen.has(o)) continue;
      seen.add(o);
      if (ArrayBuffer.isView(o)) continue;
      if (o instanceof Map) {
        for (const [k, v] of o) stack.push(k, v);
        continue;
      }
      if (o instanceof Set || Array.isArray(o)) {
        for (const v of o as Iterable<unknown>) stack.push(v);
        continue;
      }
      const proto = Object.getPrototypeOf(o) as object | null;
      if (proto !== Object.prototype && proto !== null) {
        const c = classOf.get(proto);
        if (c === undefined) {
          const name = (proto as { constructor?: { name?: string } }).constructor?.name;
          throw new Error(`state-snapshot: ${name ?? 'a class'} is not in STATE_CLASSES`);
        }
        instances.push(o);
        classes.push(c);
      }
      const fields = o as Record<string, unknown>;
      for (const k of Object.keys(fields)) {
        const v = fields[k];
        if (typeof v !== 'function') {
          stack.push(v);
          continue;
        }
        if (proto === null || !FUNCTION_FIELDS.get(proto)?.includes(k))
          throw new Error(`state-snapshot: the field ${k} holds a function not in FUNCTION_FIELDS`);
        cleared.push([fields, k, v]);
        fields[k] = undefined;
      }
    }
    const written: Written = { root, instances, classes };
    return v8.serialize(written);
  } finally {
    for (const [o, k, v] of cleared) o[k] = v;
  }
}

/**
 * The state writeState wrote, its classes given back; its function fields are unset (the owner
 * sets them). Throws on bytes that are not a snapshot of this build's classes.
 */
export function readState(bytes: Buffer): unknown {
  const w = v8.deserialize(bytes) as Partial<Written> | null;
  const { instances, classes } = w ?? {};
  if (!w || !Array.isArray(instances) || !Array.isArray(classes))
    throw new Error('not a state snapshot');
  if (instances.length !== classes.length) throw new Error('a state snapshot cut short');
  for (let i = 0; i < instances.length; i++) {
    const c = STATE_CLASSES[classes[i] as number];
    const o: unknown = instances[i];
    if (c === undefined || o === null || typeof o !== 'object')
      throw new Error('a state snapshot of another build');
    Object.setPrototypeOf(o, c.prototype);
  }
  return w.root;
}
