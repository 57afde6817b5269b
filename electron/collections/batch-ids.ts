// The shared ids of one batch's hashes, looked up once for the model and the analysis (see
// shared-hash-ids.ts): per event, a BlockStored's parent (NO_ID when it names none) and then its
// blocks, a BlockRemoved's blocks, nothing for AllBlocksCleared. Every hash is interned, removals
// too: a hash the batch stores before it removes it must have its sid by the time it is removed.
// The batch's hashes are looked up together (SharedHashIds.internAll), so that their cache misses
// overlap, each as its decimal's two numbers: the live decoder's u64 hashes come as those
// (shared/hash-list.ts), a text is parsed here.

import type { EventRecord, HashKey } from '../../shared/events';
import { DecimalHashes } from '../../shared/hash-list';
import { keyPartsInto, TEXT_KEY } from './hash-ids';
import type { SharedHashIds } from './shared-hash-ids';

/** The sids of a batch's hashes, event by event (reused from batch to batch). */
export class BatchIds {
  /** Per event of the batch, where its sids start in `sids`. */
  start = new Int32Array(64);
  sids = new Int32Array(1024);
  /**
   * The batch's hashes in the order of `sids`: their decimal parts (his, los), or TEXT_KEY in his
   * and the text in keys (null: a BlockStored without a parent). keys is a reused array, written
   * in order so that it stays packed: setting its length to 0 per batch dropped its storage,
   * grown again by the next batch, and a hole in it changes how an open's kept state is written.
   */
  private his = new Float64Array(1024);
  private los = new Float64Array(1024);
  private readonly keys: (HashKey | null)[] = [];

  constructor(readonly table: SharedHashIds) {}

  /**
   * Looks up every hash of events, then runs apply with them: the table holds them until it
   * returns (an id looked up for the batch names its hash until the batch is applied).
   */
  lookUp(events: readonly EventRecord[], apply: (ids: BatchIds) => void): void {
    this.table.hold();
    try {
      this.resolve(events);
      apply(this);
    } finally {
      this.table.settle();
    }
  }

  private resolve(events: readonly EventRecord[]): void {
    if (events.length > this.start.length) this.start = new Int32Array(2 * events.length);
    const keys = this.keys;
    let n = 0;
    for (let i = 0; i < events.length; i += 1) {
      const ev = (events[i] as EventRecord).event;
      this.start[i] = n;
      if (ev.type === 'AllBlocksCleared') continue;
      const hashes = ev.block_hashes;
      this.room(n + hashes.length + 1);
      if (ev.type === 'BlockStored') this.text(n++, ev.parent_block_hash);
      if (hashes instanceof DecimalHashes) {
        for (let j = 0; j < hashes.length; j += 1) {
          this.his[n] = hashes.hi(j);
          this.los[n] = hashes.lo(j);
          keys[n++] = null;
        }
      } else for (let j = 0; j < hashes.length; j += 1) this.text(n++, hashes[j] as HashKey);
    }
    this.table.internAll(this.his, this.los, keys, this.sids, n);
    // No key stays alive past its batch.
    keys.fill(null, 0, n);
  }

  /** Key i is a text (or null): its parts when it is a canonical decimal, else the text. */
  private text(i: number, key: HashKey | null): void {
    keyPartsInto(key, this.his, this.los, i);
    this.keys[i] = this.his[i] === TEXT_KEY ? key : null;
  }

  /** Room for n keys. */
  private room(n: number): void {
    if (n <= this.sids.length) return;
    const size = Math.max(n, 2 * this.sids.length);
    this.sids = new Int32Array(size);
    const his = new Float64Array(size);
    const los = new Float64Array(size);
    his.set(this.his);
    los.set(this.los);
    this.his = his;
    this.los = los;
  }
}
