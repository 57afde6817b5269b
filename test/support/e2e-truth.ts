// Ground truth computed in the test from the simulator's raw published events (onBatch), so the
// totals on screen can be checked against exactly the batches KV Scope received.
import type { SimPublisher } from '../../electron/sim/publisher';
import type { PublishedBatch } from '../../electron/sim/types';
import { hashKey } from '../../electron/sim/workload';

export interface TruthTotals {
  batches: number;
  storedBlocks: number;
  removedBlocks: number;
  /** Distinct resident hashes per medium, summed (one source). */
  resident: number;
  residentHashes: Set<string>;
  /** Each stored hash's parent (null for a root), as published. */
  parents: Map<string, string | null>;
}

/** Keeps every batch the simulator publishes (rank 0). */
export class RawTruth {
  readonly batches: PublishedBatch[] = [];
  private readonly off: () => void;

  constructor(sim: SimPublisher) {
    this.off = sim.onBatch((b) => {
      if (b.rank === 0) this.batches.push(b);
    });
  }

  get published(): number {
    return this.batches.length;
  }

  /** Totals over the batches with seq >= fromSeq, applying stores/removes/clears per medium. */
  totals(fromSeq = 0): TruthTotals {
    const media = new Map<string, Set<string>>();
    const parents = new Map<string, string | null>();
    let storedBlocks = 0;
    let removedBlocks = 0;
    let batches = 0;
    for (const b of this.batches) {
      if (b.seq < fromSeq || b.garbage || b.droppedFromPub) continue;
      batches++;
      for (const e of b.events) {
        if (e.type === 'AllBlocksCleared') {
          media.clear();
          continue;
        }
        const medium = e.medium ?? '';
        let set = media.get(medium);
        if (!set) media.set(medium, (set = new Set()));
        if (e.type === 'BlockStored') {
          storedBlocks += e.block_hashes.length;
          let parent = e.parent_block_hash === null ? null : hashKey(e.parent_block_hash);
          for (const h of e.block_hashes) {
            const k = hashKey(h);
            set.add(k);
            parents.set(k, parent);
            parent = k;
          }
        } else {
          removedBlocks += e.block_hashes.length;
          for (const h of e.block_hashes) set.delete(hashKey(h));
        }
      }
    }
    const residentHashes = new Set<string>();
    let resident = 0;
    for (const set of media.values()) {
      resident += set.size;
      for (const h of set) residentHashes.add(h);
    }
    return { batches, storedBlocks, removedBlocks, resident, residentHashes, parents };
  }

  stop(): void {
    this.off();
  }
}
