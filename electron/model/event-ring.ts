// The last N events in memory for the event log; the recording file holds them all.

import type { EventPage, EventQuery, EventRow } from '../../shared/api-types';
import { UNSPECIFIED_MEDIUM, type EventRecord } from '../../shared/events';
import { hashMatcher } from './hash-query';

/** Events kept in memory by default. */
export const DEFAULT_RING_SIZE = 50_000;

/** A fixed-size ring of the newest events; the k-th newest arrived as number n - k. */
export class EventRing {
  private readonly rows: (EventRecord | undefined)[];
  private next = 0;
  private count = 0;
  /** Arrival number of the next event. */
  private n = 0;

  constructor(readonly capacity = DEFAULT_RING_SIZE) {
    this.rows = new Array<EventRecord | undefined>(capacity);
  }

  push(rec: EventRecord): void {
    this.rows[this.next] = rec;
    this.n += 1;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** Count `count` arrivals that are not kept (a file replay logs only its newest events). */
  advance(count: number): void {
    this.n += count;
  }

  size(): number {
    return this.count;
  }

  /** Matching events, newest first (up to arrival number q.upTo, before q.beforeTs when given), paged. */
  query(q: EventQuery): EventPage {
    const types = q.types && q.types.length > 0 ? new Set(q.types) : null;
    const match = hashMatcher(q.hash);
    const offset = Math.max(0, Math.floor(q.offset));
    const limit = Math.max(0, Math.floor(q.limit));
    const out: EventRow[] = [];
    let total = 0;
    // The k-th newest arrived as n - k: a snapshot up to `upTo` starts at k = n - upTo.
    const firstK = q.upTo === undefined ? 1 : Math.max(1, this.n - Math.floor(q.upTo));
    for (let k = firstK; k <= this.count; k += 1) {
      const row = this.rows[(this.next - k + this.capacity) % this.capacity];
      if (!row) continue;
      if (types && !types.has(row.event.type)) continue;
      if (q.beforeTs !== undefined && !(row.ts < q.beforeTs)) continue;
      if (q.source !== undefined && q.source !== '' && row.source !== q.source) continue;
      if (q.medium !== undefined && (row.event.medium ?? UNSPECIFIED_MEDIUM) !== q.medium) continue;
      if (match) {
        const ev = row.event;
        const hit =
          ev.type !== 'AllBlocksCleared' &&
          (ev.block_hashes.some(match) ||
            (ev.type === 'BlockStored' &&
              ev.parent_block_hash !== null &&
              match(ev.parent_block_hash)));
        if (!hit) continue;
      }
      if (total >= offset && out.length < limit) out.push({ ...row, n: this.n - k });
      total += 1;
    }
    return { total, rows: out, newest: this.n - 1 };
  }
}
