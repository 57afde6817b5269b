// Ground truth of what one rank published: counts and the resident hashes per medium,
// obtained by applying the published events (not the workload's internals).
import { hashKey } from './workload';
import type { RawEvent, SimCounts, SimRankStats } from './types';

/** An empty count set. */
export function emptyCounts(): SimCounts {
  return {
    messages: 0,
    batches: 0,
    garbage: 0,
    droppedFromPub: 0,
    events: { BlockStored: 0, BlockRemoved: 0, AllBlocksCleared: 0 },
    storedBlocks: 0,
    removedBlocks: 0,
    clears: 0,
    resident: {},
  };
}

/** Accumulates one rank's truth. */
export class Truth {
  readonly counts = emptyCounts();
  lastSeq: number | null = null;
  restarts = 0;
  private resident = new Map<string, Set<string>>();

  /** Record one message and apply its events. */
  apply(seq: number, events: readonly RawEvent[], garbage: boolean, dropped: boolean): void {
    const c = this.counts;
    c.messages++;
    this.lastSeq = seq;
    if (dropped) c.droppedFromPub++;
    if (garbage) {
      c.garbage++;
      return;
    }
    c.batches++;
    for (const e of events) {
      c.events[e.type]++;
      if (e.type === 'AllBlocksCleared') {
        c.clears++;
        this.resident.clear();
        continue;
      }
      const medium = e.medium ?? 'GPU';
      let set = this.resident.get(medium);
      if (!set) this.resident.set(medium, (set = new Set()));
      if (e.type === 'BlockStored') {
        c.storedBlocks += e.block_hashes.length;
        for (const h of e.block_hashes) set.add(hashKey(h));
      } else {
        c.removedBlocks += e.block_hashes.length;
        for (const h of e.block_hashes) set.delete(hashKey(h));
      }
    }
  }

  /** Resident blocks of a medium now (cheap: no copy). */
  residentCount(medium: string): number {
    return this.resident.get(medium)?.size ?? 0;
  }

  /** Whether a hash key is resident in a medium now. */
  isResident(medium: string, key: string): boolean {
    return this.resident.get(medium)?.has(key) ?? false;
  }

  /** A publisher restart: the engine's caches start empty. */
  restart(): void {
    this.restarts++;
    this.resident.clear();
  }

  /** A snapshot (copies the hash sets). */
  snapshot(rank: number): SimRankStats {
    const resident: Record<string, number> = {};
    const residentHashes: Record<string, Set<string>> = {};
    for (const [m, set] of this.resident) {
      resident[m] = set.size;
      residentHashes[m] = new Set(set);
    }
    const c = this.counts;
    return {
      ...c,
      events: { ...c.events },
      resident,
      residentHashes,
      rank,
      lastSeq: this.lastSeq,
      restarts: this.restarts,
    };
  }
}

/** Sum per-rank counts. */
export function sumCounts(ranks: readonly SimCounts[]): SimCounts {
  const t = emptyCounts();
  for (const r of ranks) {
    t.messages += r.messages;
    t.batches += r.batches;
    t.garbage += r.garbage;
    t.droppedFromPub += r.droppedFromPub;
    t.storedBlocks += r.storedBlocks;
    t.removedBlocks += r.removedBlocks;
    t.clears += r.clears;
    for (const k of ['BlockStored', 'BlockRemoved', 'AllBlocksCleared'] as const)
      t.events[k] += r.events[k];
    for (const [m, n] of Object.entries(r.resident)) t.resident[m] = (t.resident[m] ?? 0) + n;
  }
  return t;
}
