// The shared ids of one batch's hashes, looked up once for the model and the analysis (see
// shared-hash-ids.ts): per event, a BlockStored's parent (NO_ID when it names none) and then its
// blocks, a BlockRemoved's blocks, nothing for AllBlocksCleared. Every hash is interned, removals
// too: a hash the batch stores before it removes it must have its sid by the time it is removed.

import type { EventRecord } from '../../shared/events';
import { NO_ID, type SharedHashIds } from './shared-hash-ids';

/** The sids of a batch's hashes, event by event (reused from batch to batch). */
export class BatchIds {
  /** Per event of the batch, where its sids start in `sids`. */
  start = new Int32Array(64);
  sids = new Int32Array(1024);

  constructor(readonly table: SharedHashIds) {}

  /** Looks up every hash of events; call table.hold() first and table.settle() once applied. */
  resolve(events: readonly EventRecord[]): void {
    if (events.length > this.start.length) this.start = new Int32Array(2 * events.length);
    let n = 0;
    for (let i = 0; i < events.length; i += 1) {
      const ev = (events[i] as EventRecord).event;
      this.start[i] = n;
      if (ev.type === 'AllBlocksCleared') continue;
      const hashes = ev.block_hashes;
      const need = n + hashes.length + 1;
      if (need > this.sids.length) {
        const grown = new Int32Array(Math.max(need, 2 * this.sids.length));
        grown.set(this.sids.subarray(0, n));
        this.sids = grown;
      }
      const sids = this.sids;
      const table = this.table;
      if (ev.type === 'BlockStored') {
        const parent = ev.parent_block_hash;
        sids[n++] = parent === null ? NO_ID : table.intern(parent);
      }
      for (let j = 0; j < hashes.length; j += 1) sids[n++] = table.intern(hashes[j] as string);
    }
  }
}
