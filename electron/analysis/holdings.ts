// Which sources hold each hash now (in any medium), with the router's running figures: hashes
// held by two or more sources, the duplicate blocks they make, and the pairwise overlap.
// It is also the analysis' interner: a held hash gets a small dense id, looked up once per block,
// and what the analysis keeps per held hash (its holders, its depth; R of every
// (source, medium)) is keyed by that id, in typed arrays where it is one value per hash. The ghost
// lists are keyed by it too, so a hash in some G keeps its id (ghost references count how many G
// hold it): a re-store then finds its G entry without hashing its text again. An id is recycled
// once no source holds its hash and no G does, so the arrays stay as large as the hashes tracked.

import type { HashKey } from '../../shared/events';
import { HashIds } from '../collections/hash-ids';

const EMPTY: readonly number[] = [];
const FIRST_IDS = 1024;
/** No depth. */
const NONE = -1;
/** Offsets in the info of an id. */
const MASK = 0;
const DEPTH = 1;
const REFS = 2;
/**
 * Sources with an index below this are bits of an id's holder mask and cells of the overlap
 * matrix; later ones (a long run that added and removed many sources) go to Maps.
 */
const NEAR = 31;

/** What a ghost list needs of the interner: references that keep an id, and the id's hash. */
export interface GhostIds {
  /** One more G holds id. */
  ghostIn(id: number): void;
  /** One G fewer holds id (the id is recycled when nothing else keeps it). */
  ghostOut(id: number): void;
  /** Whether some G holds id. */
  inGhosts(id: number): boolean;
  /** The hash an id names. */
  keyOf(id: number): HashKey;
}

/** Source holdings per held hash, by source index, and the hash's id. */
export class Holdings implements GhostIds {
  private readonly ids = new HashIds();
  /**
   * Per id, side by side so that one cache line serves a block: a bit per holder of index below
   * NEAR (a Map of arrays per shared hash allocated and churned once per duplicate store, a
   * million times in a large session); its depth, blocks from the root when its chain was seen
   * from the root (NONE when unknown); how many ghost lists (exact part or tail) hold it.
   */
  private info = newInfo(FIRST_IDS);
  /** Holders of index NEAR and above, per id (empty in any run of fewer than NEAR sources). */
  private readonly far = new Map<number, number[]>();
  private readonly free: number[] = [];
  private next = 0;
  /** Hashes held by both of two sources below NEAR: a dense matrix, no Map per bump. */
  private readonly nearPairs = new Int32Array(NEAR * NEAR);
  private readonly farPairs = new Map<number, number>();
  /** Reused by holders(), so a lookup allocates nothing. */
  private readonly list: number[] = [];
  /** Hashes held by two or more sources. */
  sharedNow = 0;
  /** Sum over hashes of (holders - 1). */
  duplicateNow = 0;

  /** The id of a held (or ghosted) hash, or -1 when it has none. */
  find(hash: HashKey): number {
    return this.ids.find(hash);
  }

  /** A new id for a hash that find() just said has none; add a holder next. */
  intern(hash: HashKey): number {
    const id = this.free.pop() ?? this.grow();
    this.ids.set(hash, id);
    return id;
  }

  /** The hash an id names. */
  keyOf(id: number): HashKey {
    return this.ids.keyOf(id);
  }

  /** One more ghost list holds id. */
  ghostIn(id: number): void {
    this.info[3 * id + REFS] = (this.info[3 * id + REFS] as number) + 1;
  }

  /** One ghost list fewer holds id; the id goes when no source holds it either. */
  ghostOut(id: number): void {
    const refs = (this.info[3 * id + REFS] as number) - 1;
    this.info[3 * id + REFS] = refs;
    if (refs === 0 && !this.held(id)) this.recycle(id);
  }

  /** Whether some ghost list holds id. */
  inGhosts(id: number): boolean {
    return (this.info[3 * id + REFS] as number) > 0;
  }

  /** Ids handed out so far (an upper bound for arrays keyed by id). */
  get idLimit(): number {
    return this.next;
  }

  /** Whether a source other than src holds id. */
  heldByOther(id: number, src: number): boolean {
    const mask = this.info[3 * id + MASK] as number;
    if (src < NEAR) return (mask & ~(1 << src)) !== 0 || (this.far.size > 0 && this.far.has(id));
    if (mask !== 0) return true;
    const far = this.far.get(id);
    return far !== undefined && (far.length > 1 || far[0] !== src);
  }

  /** Whether src holds id. */
  heldBy(id: number, src: number): boolean {
    if (src < NEAR) return (((this.info[3 * id + MASK] as number) >>> src) & 1) === 1;
    return this.far.get(id)?.includes(src) ?? false;
  }

  /** The sources holding id, by index (do not keep the array: it changes with the next call). */
  holders(id: number): readonly number[] {
    let mask = this.info[3 * id + MASK] as number;
    const far = this.far.size > 0 ? this.far.get(id) : undefined;
    if (mask === 0 && far === undefined) return EMPTY;
    const list = this.list;
    list.length = 0;
    for (let i = 0; mask !== 0; i += 1, mask >>>= 1) if (mask & 1) list.push(i);
    if (far !== undefined) for (const t of far) list.push(t);
    return list;
  }

  /** The depth recorded for id (-1: no id), null when none is known (or nobody holds it). */
  depthOf(id: number): number | null {
    if (id < 0) return null;
    const d = this.info[3 * id + DEPTH] as number;
    return d === NONE ? null : d;
  }

  /** Records id's depth unless it has one. */
  keepDepth(id: number, depth: number): void {
    if (this.info[3 * id + DEPTH] === NONE) this.info[3 * id + DEPTH] = Math.min(depth, 0x7fffffff);
  }

  /** src starts holding id (the caller knows it did not). */
  add(id: number, src: number): void {
    const mask = this.info[3 * id + MASK] as number;
    // Most stores are of a hash no other source holds: one bit set, no pair to count.
    if (this.held(id)) {
      const before = this.holders(id);
      for (const t of before) this.bump(t, src, 1);
      if (before.length === 1) this.sharedNow += 1;
      this.duplicateNow += 1;
    }
    if (src < NEAR) this.info[3 * id + MASK] = mask | (1 << src);
    else {
      const far = this.far.get(id);
      if (far === undefined) this.far.set(id, [src]);
      else far.push(src);
    }
  }

  /** src no longer holds id (a no-op when it did not); the last holder's going frees the id. */
  remove(id: number, src: number): void {
    if (src < NEAR) {
      const mask = this.info[3 * id + MASK] as number;
      const bit = 1 << src;
      if ((mask & bit) === 0) return;
      this.info[3 * id + MASK] = mask & ~bit;
    } else {
      const far = this.far.get(id);
      const i = far?.indexOf(src) ?? -1;
      if (far === undefined || i < 0) return;
      far.splice(i, 1);
      if (far.length === 0) this.far.delete(id);
    }
    if (!this.held(id)) {
      this.release(id);
      return;
    }
    // Still held: src leaves the pairs it made with each holder left.
    const left = this.holders(id);
    this.duplicateNow -= 1;
    for (const t of left) this.bump(t, src, -1);
    if (left.length === 1) this.sharedNow -= 1;
  }

  /** Hashes held by both a and b now. */
  overlap(a: number, b: number): number {
    if (a < NEAR && b < NEAR) return this.nearPairs[a * NEAR + b] as number;
    return this.farPairs.get(pairKey(a, b)) ?? 0;
  }

  /** Whether any source holds id. */
  private held(id: number): boolean {
    return this.info[3 * id + MASK] !== 0 || (this.far.size > 0 && this.far.has(id));
  }

  /** The last holder went: the hash is no longer held (its depth goes); its id may stay for G. */
  private release(id: number): void {
    this.info[3 * id + DEPTH] = NONE;
    if (this.info[3 * id + REFS] === 0) this.recycle(id);
  }

  private recycle(id: number): void {
    this.ids.delete(id);
    this.free.push(id);
  }

  /** A fresh id, doubling the arrays when they are full. */
  private grow(): number {
    if (3 * this.next === this.info.length) {
      const info = newInfo(2 * this.next);
      info.set(this.info);
      this.info = info;
    }
    return this.next++;
  }

  private bump(a: number, b: number, d: number): void {
    if (a < NEAR && b < NEAR) {
      // Both orders, so overlap() reads one cell whichever way it is asked.
      this.nearPairs[a * NEAR + b] = (this.nearPairs[a * NEAR + b] as number) + d;
      this.nearPairs[b * NEAR + a] = (this.nearPairs[b * NEAR + a] as number) + d;
      return;
    }
    const k = pairKey(a, b);
    this.farPairs.set(k, (this.farPairs.get(k) ?? 0) + d);
  }
}

/** Info for n ids: no holder, no depth, no ghost reference. */
function newInfo(n: number): Int32Array {
  const info = new Int32Array(3 * n);
  for (let i = DEPTH; i < info.length; i += 3) info[i] = NONE;
  return info;
}

function pairKey(a: number, b: number): number {
  return a < b ? a * 1_048_576 + b : b * 1_048_576 + a;
}
