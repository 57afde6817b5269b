// Which block hashes are resident right now, per source and per medium. A store of a hash that is
// already resident there does not count twice; a removal of one that is not changes nothing.

import type { HashKey } from '../../shared/events';

// One name for an event without a medium, shared with the analysis.
export { UNSPECIFIED_MEDIUM } from '../../shared/events';

/** Distinct resident hashes per (source, medium), with running totals. */
export class Residency {
  private readonly bySource = new Map<string, Map<string, Set<HashKey>>>();
  private readonly perMedium = new Map<string, number>();
  private readonly perSource = new Map<string, number>();
  private totalCount = 0;

  /** Mark hash resident in (source, medium); true when it was not already. */
  store(source: string, medium: string, hash: HashKey): boolean {
    let media = this.bySource.get(source);
    if (!media) {
      media = new Map();
      this.bySource.set(source, media);
    }
    let set = media.get(medium);
    if (!set) {
      set = new Set();
      media.set(medium, set);
    }
    if (set.has(hash)) return false;
    set.add(hash);
    this.bump(source, medium, 1);
    return true;
  }

  /** Remove hash from (source, medium); true when it was resident there. */
  remove(source: string, medium: string, hash: HashKey): boolean {
    const set = this.bySource.get(source)?.get(medium);
    if (!set || !set.delete(hash)) return false;
    this.bump(source, medium, -1);
    return true;
  }

  /** Empty every medium of a source; returns the hashes that were resident (per medium). */
  clear(source: string): Map<string, Set<HashKey>> {
    const media = this.bySource.get(source);
    if (!media) return new Map();
    this.bySource.set(source, new Map());
    for (const [medium, set] of media) this.bump(source, medium, -set.size);
    return media;
  }

  /** Whether hash is resident in any medium of source. */
  inSource(source: string, hash: HashKey): boolean {
    const media = this.bySource.get(source);
    if (!media) return false;
    for (const set of media.values()) if (set.has(hash)) return true;
    return false;
  }

  total(): number {
    return this.totalCount;
  }

  ofSource(source: string): number {
    return this.perSource.get(source) ?? 0;
  }

  /** Resident hashes of one source on one medium. */
  ofSourceMedium(source: string, medium: string): number {
    return this.bySource.get(source)?.get(medium)?.size ?? 0;
  }

  ofMedium(medium: string): number {
    return this.perMedium.get(medium) ?? 0;
  }

  private bump(source: string, medium: string, d: number): void {
    this.totalCount += d;
    this.perMedium.set(medium, (this.perMedium.get(medium) ?? 0) + d);
    this.perSource.set(source, (this.perSource.get(source) ?? 0) + d);
  }
}
