// The shared ids of one batch's hashes, looked up once for the model and the analysis (see
// shared-hash-ids.ts): per event, a BlockStored's parent (NO_ID when it names none) and then its
// blocks, a BlockRemoved's blocks, nothing for AllBlocksCleared. Every hash is interned, removals
// too: a hash the batch stores before it removes it must have its sid by the time it is removed.
// The batch's hashes are looked up together (SharedHashIds.internAll), so that their cache misses
// overlap.

import type { EventRecord, HashKey } from '../../shared/events';
import type { SharedHashIds } from './shared-hash-ids';

/** The sids of a batch's hashes, event by event (reused from batch to batch). */
export class BatchIds {
  /** Per event of the batch, where its sids start in `sids`. */
  start = new Int32Array(64);
  sids = new Int32Array(1024);
  /**
   * The batch's hashes in the order of `sids` (null: a BlockStored without a parent), in a reused
   * array: setting its length to 0 per batch dropped its storage, grown again by the next batch.
   */
  private readonly keys: (HashKey | null)[] = [];

  constructor(readonly table: SharedHashIds) {}

  /** Looks up every hash of events; call table.hold() first and table.settle() once applied. */
  resolve(events: readonly EventRecord[]): void {
    if (events.length > this.start.length) this.start = new Int32Array(2 * events.length);
    const keys = this.keys;
    let n = 0;
    for (let i = 0; i < events.length; i += 1) {
      const ev = (events[i] as EventRecord).event;
      this.start[i] = n;
      if (ev.type === 'AllBlocksCleared') continue;
      if (ev.type === 'BlockStored') keys[n++] = ev.parent_block_hash;
      const hashes = ev.block_hashes;
      for (let j = 0; j < hashes.length; j += 1) keys[n++] = hashes[j] as HashKey;
    }
    if (n > this.sids.length) this.sids = new Int32Array(Math.max(n, 2 * this.sids.length));
    this.table.internAll(keys, this.sids, n);
    // No key stays alive past its batch.
    keys.fill(null, 0, n);
  }
}
