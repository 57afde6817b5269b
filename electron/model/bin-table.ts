// Per-second bins over event time for many series that share one time axis. Each series is a
// growable Float64Array; the window is capped (MAX_BINS) so memory stays bounded however long
// a session runs: past the cap the oldest hour is dropped. Times that are not event times
// (shared/event-bounds.ts) are refused and counted, and a read returns at most maxBins values,
// whatever range it is asked for: no time can make it allocate or loop without a bound.

import { isEventTime } from '../../shared/event-bounds';

/** At most this many 1-second bins are kept (48 hours). */
export const MAX_BINS = 48 * 3600;
const DROP_CHUNK = 3600;

/** How a series fills seconds nobody wrote: counters are 0, levels carry the previous value. */
export type RowKind = 'sum' | 'level';

interface Row {
  kind: RowKind;
  data: Float64Array;
}

/** A table of per-second series sharing one start second. */
export class BinTable {
  /** Absolute second of index 0; null until the first write. */
  private start: number | null = null;
  private used = 0;
  private capacity = 0;
  private readonly rows: Row[] = [];
  /** Writes refused because their second was not an event time (not finite, or absurd). */
  rejected = 0;

  constructor(private readonly maxBins = MAX_BINS) {}

  /** Add a series; returns its row index. */
  addRow(kind: RowKind): number {
    const data = new Float64Array(this.capacity);
    if (kind === 'level') data.fill(NaN);
    this.rows.push({ kind, data });
    return this.rows.length - 1;
  }

  /** First and last absolute second held, or null when empty. */
  span(): { first: number; last: number } | null {
    if (this.start === null || this.used === 0) return null;
    return { first: this.start, last: this.start + this.used - 1 };
  }

  /** Add v to a counter series at second sec. */
  add(row: number, sec: number, v: number): void {
    const r = this.rows[row];
    if (!r) return;
    if (!isEventTime(sec)) {
      this.rejected += 1;
      return;
    }
    const i = this.indexOf(sec);
    r.data[i] = (r.data[i] ?? 0) + v;
  }

  /** Set a level series at second sec. */
  set(row: number, sec: number, v: number): void {
    const r = this.rows[row];
    if (!r) return;
    if (!isEventTime(sec)) {
      this.rejected += 1;
      return;
    }
    r.data[this.indexOf(sec)] = v;
  }

  /**
   * Values of a series for absolute seconds [from, to], levels filled forward, gaps as 0. A range
   * wider than maxBins is cut to its newest maxBins seconds (read the span() for aligned reads);
   * a bound that is not an event time reads nothing.
   */
  read(row: number, fromIn: number, toIn: number): Float64Array {
    if (!isEventTime(fromIn) || !isEventTime(toIn) || toIn < fromIn) return new Float64Array(0);
    const to = Math.floor(toIn);
    const from = Math.max(Math.floor(fromIn), to - this.maxBins + 1);
    const out = new Float64Array(to - from + 1);
    const r = this.rows[row];
    if (!r || this.start === null) return out;
    let carry = 0;
    if (r.kind === 'level') {
      for (let i = Math.min(from - this.start, this.used) - 1; i >= 0; i -= 1) {
        const v = r.data[i] ?? NaN;
        if (!Number.isNaN(v)) {
          carry = v;
          break;
        }
      }
    }
    for (let s = from; s <= to; s += 1) {
      const i = s - this.start;
      const v = i >= 0 && i < this.used ? (r.data[i] ?? NaN) : NaN;
      if (r.kind === 'level') {
        if (!Number.isNaN(v)) carry = v;
        out[s - from] = carry;
      } else out[s - from] = Number.isNaN(v) ? 0 : v;
    }
    return out;
  }

  /** Sum of a counter series over absolute seconds [from, to]. */
  sum(row: number, from: number, to: number): number {
    const r = this.rows[row];
    if (!r || this.start === null || Number.isNaN(from) || Number.isNaN(to)) return 0;
    let total = 0;
    // Clamped to the held bins, so an infinite or absurd bound costs nothing.
    const lo = Math.max(0, Math.floor(from) - this.start);
    const hi = Math.min(this.used - 1, Math.floor(to) - this.start);
    for (let i = lo; i <= hi; i += 1) total += r.data[i] ?? 0;
    return total;
  }

  /** Bytes held by the typed arrays (for the memory report). */
  bytes(): number {
    return this.rows.length * this.capacity * 8;
  }

  private indexOf(secIn: number): number {
    const sec = Math.floor(secIn);
    if (this.start === null) {
      this.start = sec;
      this.ensure(1);
      this.used = 1;
      return 0;
    }
    if (sec < this.start) {
      const shift = this.start - sec;
      // Too far back to keep: count it in the oldest bin rather than lose it.
      if (shift + this.used > this.maxBins) return 0;
      this.ensure(this.used + shift);
      for (const r of this.rows) {
        r.data.copyWithin(shift, 0, this.used);
        r.data.fill(r.kind === 'level' ? NaN : 0, 0, shift);
      }
      this.start = sec;
      this.used += shift;
      return 0;
    }
    let i = sec - this.start;
    if (i >= this.maxBins) {
      const drop = Math.min(this.used, Math.max(DROP_CHUNK, i - this.maxBins + 1));
      for (const r of this.rows) {
        r.data.copyWithin(0, drop, this.used);
        r.data.fill(r.kind === 'level' ? NaN : 0, this.used - drop, this.used);
      }
      this.used -= drop;
      this.start += drop;
      i = sec - this.start;
      if (i >= this.maxBins) {
        // A jump further than the whole window: start afresh at this second.
        for (const r of this.rows) r.data.fill(r.kind === 'level' ? NaN : 0);
        this.start = sec;
        this.used = 0;
        i = 0;
      }
    }
    if (i >= this.used) {
      this.ensure(i + 1);
      this.used = i + 1;
    }
    return i;
  }

  private ensure(n: number): void {
    if (n <= this.capacity) return;
    const next = Math.min(this.maxBins, Math.max(n, this.capacity * 2, 256));
    for (const r of this.rows) {
      const data = new Float64Array(next);
      if (r.kind === 'level') data.fill(NaN);
      data.set(r.data.subarray(0, Math.min(this.used, r.data.length)));
      r.data = data;
    }
    this.capacity = next;
  }
}
