// Which sources hold each hash now (in any medium), with the router's running figures: hashes
// held by two or more sources, the duplicate blocks they make, and the pairwise overlap. Most
// hashes have one holder: they cost one map entry with a number; shared ones a small list.

import type { HashKey } from '../../shared/events';

const EMPTY: readonly number[] = [];

/** Source holdings per hash, by source index. */
export class Holdings {
  private readonly single = new Map<HashKey, number>();
  private readonly multi = new Map<HashKey, number[]>();
  private readonly pairs = new Map<number, number>();
  /** Hashes held by two or more sources. */
  sharedNow = 0;
  /** Sum over hashes of (holders - 1). */
  duplicateNow = 0;

  constructor(private readonly onReleased: (hash: HashKey) => void = () => undefined) {}

  /** Whether a source other than src holds hash. */
  heldByOther(hash: HashKey, src: number): boolean {
    if (this.multi.has(hash)) return true;
    const one = this.single.get(hash);
    return one !== undefined && one !== src;
  }

  /** Whether anyone holds hash. */
  held(hash: HashKey): boolean {
    return this.single.has(hash) || this.multi.has(hash);
  }

  /** The sources holding hash (do not keep the array: it may change). */
  holders(hash: HashKey): readonly number[] {
    const one = this.single.get(hash);
    if (one !== undefined) return [one];
    return this.multi.get(hash) ?? EMPTY;
  }

  /** src starts holding hash (the caller knows it did not). */
  add(hash: HashKey, src: number): void {
    const one = this.single.get(hash);
    if (one !== undefined) {
      this.single.delete(hash);
      this.multi.set(hash, [one, src]);
      this.bump(one, src, 1);
      this.sharedNow += 1;
      this.duplicateNow += 1;
      return;
    }
    const list = this.multi.get(hash);
    if (list === undefined) {
      this.single.set(hash, src);
      return;
    }
    for (const t of list) this.bump(t, src, 1);
    list.push(src);
    this.duplicateNow += 1;
  }

  /** src no longer holds hash (a no-op when it did not). */
  remove(hash: HashKey, src: number): void {
    const one = this.single.get(hash);
    if (one !== undefined) {
      if (one !== src) return;
      this.single.delete(hash);
      this.onReleased(hash);
      return;
    }
    const list = this.multi.get(hash);
    if (list === undefined) return;
    const i = list.indexOf(src);
    if (i < 0) return;
    list.splice(i, 1);
    this.duplicateNow -= 1;
    for (const t of list) this.bump(t, src, -1);
    if (list.length === 1) {
      this.multi.delete(hash);
      this.single.set(hash, list[0] as number);
      this.sharedNow -= 1;
    }
  }

  /** Hashes held by both a and b now. */
  overlap(a: number, b: number): number {
    return this.pairs.get(pairKey(a, b)) ?? 0;
  }

  private bump(a: number, b: number, d: number): void {
    const k = pairKey(a, b);
    this.pairs.set(k, (this.pairs.get(k) ?? 0) + d);
  }
}

function pairKey(a: number, b: number): number {
  return a < b ? a * 1_048_576 + b : b * 1_048_576 + a;
}
