// Which sources hold each hash now (in any medium), with the router's running figures: hashes
// held by two or more sources, the duplicate blocks they make, and the pairwise overlap.
// It is also the analysis' interner: a held hash gets a small dense id, looked up once per block,
// and what the analysis keeps per held hash (its first holder, its depth; R of every
// (source, medium)) is keyed by that id, in typed arrays where it is one value per hash. The ghost
// lists are keyed by it too, so a hash in some G keeps its id (ghost references count how many G
// hold it): a re-store then finds its G entry without hashing its text again. An id is recycled
// once no source holds its hash and no G does, so the arrays stay as large as the hashes tracked.

import type { HashKey } from '../../shared/events';
import { HashIds } from '../collections/hash-ids';

const EMPTY: readonly number[] = [];
const FIRST_IDS = 1024;
/** No holder / no depth. */
const NONE = -1;
/** Offsets in the info of an id. */
const ONE = 0;
const DEPTH = 1;
const REFS = 2;

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
   * Per id, side by side so that one cache line serves a block: the holder of an id held by one
   * source (NONE while it has several, then in `multi`); its depth, blocks from the root when its
   * chain was seen from the root (NONE when unknown); how many ghost lists (exact part or tail)
   * hold it.
   */
  private info = newInfo(FIRST_IDS);
  private readonly multi = new Map<number, number[]>();
  private readonly free: number[] = [];
  private next = 0;
  private readonly pairs = new Map<number, number>();
  /** Reused by holders() for a single holder, so a lookup allocates nothing. */
  private readonly single: number[] = [0];
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
    if (refs === 0 && this.info[3 * id + ONE] === NONE && !this.multi.has(id)) this.recycle(id);
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
    const one = this.info[3 * id + ONE] as number;
    // The typed array answers for one holder; only a shared hash costs a Map lookup.
    if (one !== NONE) return one !== src;
    return this.multi.has(id);
  }

  /** Whether src holds id. */
  heldBy(id: number, src: number): boolean {
    const one = this.info[3 * id + ONE] as number;
    if (one !== NONE) return one === src;
    return this.multi.get(id)?.includes(src) ?? false;
  }

  /** The sources holding id (do not keep the array: it may change). */
  holders(id: number): readonly number[] {
    const one = this.info[3 * id + ONE] as number;
    if (one !== NONE) {
      this.single[0] = one;
      return this.single;
    }
    return this.multi.get(id) ?? EMPTY;
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
    const one = this.info[3 * id + ONE] as number;
    if (one !== NONE) {
      this.info[3 * id + ONE] = NONE;
      this.multi.set(id, [one, src]);
      this.bump(one, src, 1);
      this.sharedNow += 1;
      this.duplicateNow += 1;
      return;
    }
    const list = this.multi.get(id);
    if (list === undefined) {
      this.info[3 * id + ONE] = src;
      return;
    }
    for (const t of list) this.bump(t, src, 1);
    list.push(src);
    this.duplicateNow += 1;
  }

  /** src no longer holds id (a no-op when it did not); the last holder's going frees the id. */
  remove(id: number, src: number): void {
    const one = this.info[3 * id + ONE] as number;
    if (one !== NONE) {
      if (one !== src) return;
      this.release(id);
      return;
    }
    const list = this.multi.get(id);
    if (list === undefined) return;
    const i = list.indexOf(src);
    if (i < 0) return;
    list.splice(i, 1);
    this.duplicateNow -= 1;
    for (const t of list) this.bump(t, src, -1);
    if (list.length === 1) {
      this.multi.delete(id);
      this.info[3 * id + ONE] = list[0] as number;
      this.sharedNow -= 1;
    }
  }

  /** Hashes held by both a and b now. */
  overlap(a: number, b: number): number {
    return this.pairs.get(pairKey(a, b)) ?? 0;
  }

  /** The last holder went: the hash is no longer held (its depth goes); its id may stay for G. */
  private release(id: number): void {
    this.info[3 * id + ONE] = NONE;
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
    const k = pairKey(a, b);
    this.pairs.set(k, (this.pairs.get(k) ?? 0) + d);
  }
}

/** Info for n ids: no holder, no depth, no ghost reference. */
function newInfo(n: number): Int32Array {
  const info = new Int32Array(3 * n).fill(NONE);
  for (let i = REFS; i < info.length; i += 3) info[i] = 0;
  return info;
}

function pairKey(a: number, b: number): number {
  return a < b ? a * 1_048_576 + b : b * 1_048_576 + a;
}
