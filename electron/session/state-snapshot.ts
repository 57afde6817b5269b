// The state an open built (the model and the analysis), written whole and read back, so that a
// session opened again restores it instead of replaying its events (open-cache.ts).
//
// v8's serializer keeps what the state is made of (Maps, Sets, arrays, numbers, strings, shared
// references) but not classes: every class instance is listed beside the state with its class's
// place in STATE_CLASSES, and given its prototype back when read. A snapshot is only ever read by
// the build that wrote it (the cache keys it by the code), so a class's fields need no version of
// their own; a class missing from the list is refused when written, never written half. Functions
// cannot be written: the three fields that hold one are named here, left out, and set again by
// the owner (CacheModel.reattach).
//
// The typed arrays (nearly all of a state's bytes: 120 MB for a 1M-event session) are not copied
// into the serializer's buffer, which grew by doubling and held a second copy of the state while it
// was compressed: the graph names each array by a number, and the arrays' bytes follow it as they
// are in memory (StateBytes), read back as views of the bytes read. Views that shared memory (a
// page of hash ids seen as doubles and as words) share it again when read.

import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import zlib from 'node:zlib';
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
import { CountedIds } from '../collections/counted-ids';
import { HashIds } from '../collections/hash-ids';
import { HashKeySet } from '../collections/hash-key-set';
import { IdTable } from '../collections/id-table';
import { SharedHashIds } from '../collections/shared-hash-ids';
import { BinTable } from '../model/bin-table';
import { CacheModel } from '../model/cache-model';
import { ChartClock } from '../../shared/chart-clock';
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
  ChartClock,
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
  CountedIds,
];

/** The fields that hold a function: left out of a snapshot, set again by reattach. */
const FUNCTION_FIELDS = new Map<object, readonly string[]>([
  [EventRing.prototype, ['readLine']],
  [ChainViews.prototype, ['now']],
  [Residency.prototype, ['makeSlot']],
]);

const classOf = new Map<object, number>(STATE_CLASSES.map((c, i) => [c.prototype as object, i]));

export interface Written {
  root: unknown;
  /** Every class instance in root, and its class (an index into STATE_CLASSES). */
  instances: object[];
  classes: number[];
}

interface TypedArrayKind {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayBufferView;
  readonly BYTES_PER_ELEMENT: number;
}

/** The typed arrays a state may hold, by the number written for each; then DataView, Buffer. */
const TYPED_KINDS: readonly TypedArrayKind[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];
const DATA_VIEW = TYPED_KINDS.length;
const BUFFER = DATA_VIEW + 1;

const MAGIC = Buffer.from('KVSTATE2');
/** The head: MAGIC, the table's and the graph's lengths (u32 each), the table, the graph. */
const HEAD_FIXED = MAGIC.length + 8;
const ALIGN = 8;
const padOf = (n: number): number => (ALIGN - (n % ALIGN)) % ALIGN;
/** The bytes a block takes: its lead zeros, its bytes, zeros to the next 8-byte word. */
const spanOf = (lead: number, length: number): number => lead + length + padOf(lead + length);
const ZEROS = new Uint8Array(ALIGN);

function* zeros(n: number): Generator<Uint8Array> {
  if (n > 0) yield ZEROS.subarray(0, n);
}

/**
 * Where the arrays' bytes go: per view, its kind, block, and place in the block (bytes); per
 * block, its length and the bytes of zeros before it (its start's place in an 8-byte word, kept
 * so that every view is aligned again when read).
 */
interface ViewTable {
  views: number[];
  blocks: number[];
}

/** A written state: the graph, then the arrays' bytes, which are views of the live arrays. */
export class StateBytes {
  constructor(
    /** MAGIC, the table and the graph. */
    readonly head: Buffer,
    /** Per block, the zeros before it and its bytes (a view of the arrays' memory, not a copy). */
    private readonly blocks: ReadonlyArray<{ lead: number; bytes: Uint8Array }>,
  ) {}

  get byteLength(): number {
    let n = spanOf(0, this.head.length);
    for (const b of this.blocks) n += spanOf(b.lead, b.bytes.length);
    return n;
  }

  /** Every byte in order, in pieces: the arrays' own memory, not copied. */
  *chunks(): Generator<Uint8Array> {
    yield this.head;
    yield* zeros(padOf(this.head.length));
    for (const { lead, bytes } of this.blocks) {
      yield* zeros(lead);
      if (bytes.length > 0) yield bytes;
      yield* zeros(padOf(lead + bytes.length));
    }
  }

  /** The whole, copied into one buffer. */
  toBuffer(): Buffer {
    return Buffer.concat([...this.chunks()]);
  }

  /**
   * A fingerprint of the arrays' bytes as they are now: the same as when written means the bytes
   * kept in the background are the state's as it was written, not one changed meanwhile.
   */
  fingerprint(): string {
    if (zlib.crc32) {
      let crc = 0;
      for (const b of this.blocks) crc = zlib.crc32(b.bytes, crc);
      return String(crc);
    }
    // zlib.crc32 came in Node 20.15.
    const h = createHash('sha1');
    for (const b of this.blocks) h.update(b.bytes);
    return h.digest('hex');
  }
}

/** The number written for view's kind; throws on a kind of view it cannot write. */
function kindOf(view: ArrayBufferView): number {
  if (Buffer.isBuffer(view)) return BUFFER;
  if (view instanceof DataView) return DATA_VIEW;
  const kind = TYPED_KINDS.findIndex((k) => view.constructor === k);
  if (kind === -1) throw new Error(`state-snapshot: a ${view.constructor.name} cannot be written`);
  return kind;
}

/** A view of kind over `bytes` bytes of buffer from `from`; undefined for no such kind. */
function viewOf(
  kind: number,
  buffer: ArrayBufferLike,
  from: number,
  bytes: number,
): ArrayBufferView | undefined {
  if (kind === DATA_VIEW) return new DataView(buffer, from, bytes);
  if (kind === BUFFER) return Buffer.from(buffer, from, bytes);
  const Kind = TYPED_KINDS[kind];
  return Kind && new Kind(buffer, from, bytes / Kind.BYTES_PER_ELEMENT);
}

/**
 * Lays the views out in blocks: the views of one buffer that touch or overlap make one block of
 * the bytes they cover (they share it again when read), and no byte that no view covers is
 * written (a pooled Buffer's neighbours are not the state's).
 */
function layOut(views: readonly ArrayBufferView[]): {
  table: ViewTable;
  blocks: Array<{ lead: number; bytes: Uint8Array }>;
  indexOf: Map<ArrayBufferView, number>;
} {
  const byBuffer = new Map<ArrayBufferLike, ArrayBufferView[]>();
  for (const v of views) {
    const list = byBuffer.get(v.buffer);
    if (list) list.push(v);
    else byBuffer.set(v.buffer, [v]);
  }
  const table: ViewTable = { views: [], blocks: [] };
  const blocks: Array<{ lead: number; bytes: Uint8Array }> = [];
  const indexOf = new Map<ArrayBufferView, number>();
  for (const [buffer, list] of byBuffer) {
    list.sort((a, b) => a.byteOffset - b.byteOffset);
    let i = 0;
    while (i < list.length) {
      const start = (list[i] as ArrayBufferView).byteOffset;
      let end = start;
      let j = i;
      for (; j < list.length && (list[j] as ArrayBufferView).byteOffset <= end; j += 1) {
        const v = list[j] as ArrayBufferView;
        end = Math.max(end, v.byteOffset + v.byteLength);
      }
      const block = blocks.length;
      const lead = start % ALIGN;
      blocks.push({ lead, bytes: new Uint8Array(buffer, start, end - start) });
      table.blocks.push(end - start, lead);
      for (const v of list.slice(i, j)) {
        indexOf.set(v, indexOf.size);
        table.views.push(kindOf(v), block, v.byteOffset - start, v.byteLength);
      }
      i = j;
    }
  }
  // A view's number (indexOf) is its place in table.views: what the graph writes for it.
  return { table, blocks, indexOf };
}

/** v8's serializer, writing a typed array as its number in the view table. */
class GraphSerializer extends v8.DefaultSerializer {
  constructor(private readonly indexOf: Map<ArrayBufferView, number>) {
    super();
  }

  _writeHostObject(view: ArrayBufferView): void {
    const i = this.indexOf.get(view);
    if (i === undefined) throw new Error('state-snapshot: a typed array the walk did not see');
    this.writeUint32(i);
  }
}

/** v8's deserializer, reading a typed array's number as that view of the bytes read. */
class GraphDeserializer extends v8.DefaultDeserializer {
  constructor(
    graph: Buffer,
    private readonly views: readonly ArrayBufferView[],
  ) {
    super(graph);
  }

  _readHostObject(): ArrayBufferView {
    const view = this.views[this.readUint32()];
    if (!view) throw new Error('a state snapshot naming a typed array it does not hold');
    return view;
  }
}

/** root (and all it reaches) as bytes; throws on a class not in STATE_CLASSES or a function. */
export function writeState(root: object): StateBytes {
  const instances: object[] = [];
  const classes: number[] = [];
  const views: ArrayBufferView[] = [];
  const cleared: Array<[Record<string, unknown>, string, unknown]> = [];
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  try {
    while (stack.length > 0) {
      const o = stack.pop();
      if (o === null || typeof o !== 'object' || seen.has(o)) continue;
      seen.add(o);
      if (ArrayBuffer.isView(o)) {
        views.push(o);
        continue;
      }
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
    return writeWalked({ root, instances, classes }, views);
  } finally {
    for (const [o, k, v] of cleared) o[k] = v;
  }
}

/** The bytes of a state walked by writeState: `views`, every typed array it holds. */
export function writeWalked(written: Written, views: readonly ArrayBufferView[]): StateBytes {
  const { table, blocks, indexOf } = layOut(views);
  const serializer = new GraphSerializer(indexOf);
  serializer.writeHeader();
  serializer.writeValue(written);
  const graph = serializer.releaseBuffer();
  const tableBytes = Buffer.from(JSON.stringify(table));
  const head = Buffer.alloc(HEAD_FIXED + tableBytes.length + graph.length);
  MAGIC.copy(head, 0);
  head.writeUInt32LE(tableBytes.length, MAGIC.length);
  head.writeUInt32LE(graph.length, MAGIC.length + 4);
  tableBytes.copy(head, HEAD_FIXED);
  graph.copy(head, HEAD_FIXED + tableBytes.length);
  return new StateBytes(head, blocks);
}

/** Non-negative safe integers, or a throw: what a view table holds. */
function counts(x: unknown): number[] {
  if (!Array.isArray(x) || !x.every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
    throw new Error('not a state snapshot');
  return x as number[];
}

/** The views a table names, over the arrays' bytes starting at `at` in bytes. */
function viewsOf(table: unknown, bytes: Buffer, at: number): ArrayBufferView[] {
  const t = (table ?? {}) as Partial<ViewTable>;
  const blocks = counts(t.blocks);
  const entries = counts(t.views);
  const starts: number[] = [];
  let pos = at;
  for (let b = 0; b + 1 < blocks.length; b += 2) {
    const [length, lead] = [blocks[b] as number, blocks[b + 1] as number];
    starts.push(bytes.byteOffset + pos + lead);
    pos += spanOf(lead, length);
  }
  if (pos > bytes.length) throw new Error('a state snapshot cut short');
  const views: ArrayBufferView[] = [];
  for (let i = 0; i + 3 < entries.length; i += 4) {
    const [kind, block, offset, length] = entries.slice(i, i + 4) as [
      number,
      number,
      number,
      number,
    ];
    const start = starts[block];
    const view =
      start !== undefined && offset + length <= (blocks[2 * block] as number)
        ? viewOf(kind, bytes.buffer, start + offset, length)
        : undefined;
    if (!view) throw new Error('not a state snapshot');
    views.push(view);
  }
  return views;
}

/**
 * The state writeState wrote, its classes given back; its function fields are unset (the owner
 * sets them). Throws on bytes that are not a snapshot of this build's classes.
 */
export function readState(input: Buffer): unknown {
  // Views need their bytes where they were in an 8-byte word: copied when the read's are not.
  const bytes = input.byteOffset % ALIGN === 0 ? input : Buffer.from(new Uint8Array(input));
  if (bytes.length < HEAD_FIXED || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
    throw new Error('not a state snapshot');
  const tableLength = bytes.readUInt32LE(MAGIC.length);
  const graphLength = bytes.readUInt32LE(MAGIC.length + 4);
  const headLength = HEAD_FIXED + tableLength + graphLength;
  if (headLength > bytes.length) throw new Error('a state snapshot cut short');
  const table: unknown = JSON.parse(bytes.toString('utf8', HEAD_FIXED, HEAD_FIXED + tableLength));
  const views = viewsOf(table, bytes, spanOf(0, headLength));
  const deserializer = new GraphDeserializer(
    bytes.subarray(HEAD_FIXED + tableLength, headLength),
    views,
  );
  deserializer.readHeader();
  const w = deserializer.readValue() as Partial<Written> | null;
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
