// Per-source ordering of a publisher's batches: gaps, duplicates, restarts and replay merge.
// Pure: no sockets, no timers. The caller feeds arrivals, replay answers and the clock (tick).
//
// Rules, with `last` the highest seq delivered so far:
// - the first batch ever seen is delivered as is (we joined mid-stream: not a gap);
// - seq = last + 1 is delivered at once;
// - seq > last + 1 opens a gap [last + 1, seq - 1]. Without replay it is recorded lost at once
//   and the batch delivered. With replay, later batches are held, a replay from last + 1 is
//   requested, and the answer is merged in seq order; what the answer lacks is lost;
// - seq <= last is a publisher RESET when seq is more than `resetWindow` (default 64) below
//   last. Within the window: when the owner gives `same(a, b)` (KvSource: equal payload bytes)
//   it is a DUPLICATE (dropped) only if it matches the batch delivered under that seq, else a
//   RESET (an engine restarted after a short run, maybe with its first batches missed);
//   without `same`, seq = 0 (last > 0) is a reset and anything else a duplicate. After a
//   reset the new run is expected from 0, so a restart whose first batches we missed shows
//   as a gap from 0;
// - a pending gap is given up (missing seqs lost, held batches delivered) after
//   `replayTimeoutMs`, on a replay failure, on a reset, or when the held batches pass
//   `maxHeldBatches` / `maxHeldBytes`.

export interface SequencerOptions<T = unknown> {
  /** A replay endpoint exists: hold and ask instead of recording gaps lost at once. */
  replay: boolean;
  replayTimeoutMs?: number;
  maxHeldBatches?: number;
  maxHeldBytes?: number;
  resetWindow?: bigint;
  /** Whether two batches are the same message (a true duplicate), e.g. equal payload bytes. */
  same?: (a: T, b: T) => boolean;
}

/** A gap once settled: how many of its seqs came back and how many are gone. */
export interface SettledGap<T> {
  from: bigint;
  to: bigint;
  recovered: number;
  lost: number;
  /** The batch whose arrival revealed the gap. */
  revealedBy: T;
}

/** What the sequencer tells its owner, synchronously, in delivery order. */
export interface SequencerOut<T> {
  deliver(seq: bigint, item: T, recovered: boolean): void;
  gap(g: SettledGap<T>): void;
  reset(previousSeq: bigint, item: T): void;
  duplicate(seq: bigint): void;
  /** Ask the replay endpoint for every batch with seq >= fromSeq; answer with replayed(id, ...). */
  request(id: number, fromSeq: bigint): void;
}

/** One batch given back by the replay endpoint. */
export interface ReplayedBatch<T> {
  seq: bigint;
  item: T;
  bytes: number;
}

interface Held<T> {
  item: T;
  bytes: number;
  replayed: boolean;
}

interface Pending<T> {
  id: number;
  deadline: number;
  held: Map<bigint, Held<T>>;
  heldBytes: number;
  maxHeld: bigint;
  /** Highest seq held when the request went out: the answer covers at least up to here. */
  requestedUpTo: bigint;
}

export class Sequencer<T> {
  private last: bigint | null = null;
  private pending: Pending<T> | null = null;
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly maxBatches: number;
  private readonly maxBytes: number;
  private readonly resetWindow: bigint;
  /** Recently delivered batches by seq (a ring of resetWindow slots), for `same`. */
  private readonly recent: ({ seq: bigint; item: T } | undefined)[];
  private readonly ringMask: bigint;

  constructor(
    private readonly opts: SequencerOptions<T>,
    private readonly out: SequencerOut<T>,
  ) {
    this.timeoutMs = opts.replayTimeoutMs ?? 3000;
    this.maxBatches = opts.maxHeldBatches ?? 10_000;
    this.maxBytes = opts.maxHeldBytes ?? 64 * 1024 * 1024;
    this.resetWindow = opts.resetWindow ?? 64n;
    // A power of two at least as large as the window, so a slot is `seq & mask`.
    let slots = 1n;
    while (slots < this.resetWindow + 1n) slots <<= 1n;
    this.ringMask = slots - 1n;
    this.recent = opts.same === undefined ? [] : new Array<undefined>(Number(slots));
  }

  /** Highest seq delivered so far (null before the first batch). */
  get lastSeq(): bigint | null {
    return this.last;
  }

  /** A gap is waiting for its replay answer. */
  get waiting(): boolean {
    return this.pending !== null;
  }

  /** Batches held behind the pending gap. */
  get heldCount(): number {
    return this.pending?.held.size ?? 0;
  }

  /** A batch arrived on the live stream. */
  receive(seq: bigint, item: T, bytes: number, now: number): void {
    const last = this.last;
    const p = this.pending;
    if (p === null) {
      if (last === null || seq === last + 1n) {
        this.last = seq;
        this.emit(seq, item, false);
        return;
      }
      if (seq > last) {
        this.openGap(last + 1n, seq, item, bytes, now);
        return;
      }
      this.backwards(seq, item, bytes, now, last);
      return;
    }
    // last is never null while a gap is pending.
    if (last !== null && seq <= last) {
      this.backwards(seq, item, bytes, now, last);
      return;
    }
    if (p.held.has(seq)) {
      this.out.duplicate(seq);
      return;
    }
    p.held.set(seq, { item, bytes, replayed: false });
    p.heldBytes += bytes;
    if (seq > p.maxHeld) p.maxHeld = seq;
    if (p.held.size > this.maxBatches || p.heldBytes > this.maxBytes) this.giveUp(now);
  }

  /** The replay endpoint answered request `id` (ignored if that request was given up). */
  replayed(id: number, batches: ReplayedBatch<T>[], now: number): void {
    const p = this.pending;
    if (p === null || p.id !== id || this.last === null) return;
    let cutoff = p.requestedUpTo;
    for (const b of batches) {
      if (b.seq <= this.last || p.held.has(b.seq)) continue;
      p.held.set(b.seq, { item: b.item, bytes: b.bytes, replayed: true });
      if (b.seq > cutoff) cutoff = b.seq;
    }
    this.settle(cutoff, now);
  }

  /** Give up on the pending gap: what is missing is lost; held batches are delivered. */
  giveUp(now: number): void {
    const p = this.pending;
    if (p === null) return;
    this.settle(p.maxHeld, now);
  }

  /** Advance the clock: gives up on a gap whose replay has not answered in time. */
  tick(now: number): void {
    const p = this.pending;
    if (p !== null && now >= p.deadline) this.giveUp(now);
  }

  private openGap(from: bigint, seq: bigint, item: T, bytes: number, now: number): void {
    if (!this.opts.replay) {
      this.out.gap({
        from,
        to: seq - 1n,
        recovered: 0,
        lost: Number(seq - from),
        revealedBy: item,
      });
      this.last = seq;
      this.emit(seq, item, false);
      return;
    }
    const id = this.nextId++;
    const held = new Map<bigint, Held<T>>([[seq, { item, bytes, replayed: false }]]);
    this.pending = {
      id,
      deadline: now + this.timeoutMs,
      held,
      heldBytes: bytes,
      maxHeld: seq,
      requestedUpTo: seq,
    };
    this.out.request(id, from);
    const p = this.pending;
    if (p !== null && p.id === id && (held.size > this.maxBatches || bytes > this.maxBytes)) {
      this.giveUp(now);
    }
  }

  private backwards(seq: bigint, item: T, bytes: number, now: number, last: bigint): void {
    let isReset: boolean;
    if (last - seq > this.resetWindow) isReset = true;
    else if (this.opts.same === undefined) isReset = seq === 0n && last > 0n;
    else {
      const r = this.recent[Number(seq & this.ringMask)];
      isReset = r === undefined || r.seq !== seq || !this.opts.same(r.item, item);
    }
    if (!isReset) {
      this.out.duplicate(seq);
      return;
    }
    this.giveUp(now);
    const previous = this.last ?? last;
    this.out.reset(previous, item);
    // The new run counts from 0: a restart whose first batches we missed shows as a gap.
    this.last = -1n;
    this.receive(seq, item, bytes, now);
  }

  /**
   * Deliver everything held up to `cutoff` in order and settle the runs of seqs that the live
   * stream missed below it (recovered = replayed, lost = neither); re-feed the rest.
   */
  private settle(cutoff: bigint, now: number): void {
    const p = this.pending;
    if (p === null || this.last === null) return;
    this.pending = null;
    const keys = [...p.held.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let runFrom = this.last + 1n;
    let runRecovered = 0;
    let lastItem: T | null = null;
    let i = 0;
    for (; i < keys.length; i++) {
      const k = keys[i] as bigint;
      const h = p.held.get(k) as Held<T>;
      if (k > cutoff) {
        // A live batch past the answer: the run up to the cutoff is settled now.
        this.emitRun(runFrom, cutoff, runRecovered, h.item);
        break;
      }
      if (h.replayed) {
        runRecovered++;
      } else {
        this.emitRun(runFrom, k - 1n, runRecovered, h.item);
        runFrom = k + 1n;
        runRecovered = 0;
      }
      this.last = k;
      lastItem = h.item;
      this.emit(k, h.item, h.replayed);
    }
    if (i === keys.length && lastItem !== null) {
      // Replayed batches past the newest live one were not missed, just early: count only holes.
      const size = Number(cutoff - runFrom + 1n);
      if (size > runRecovered) this.emitRun(runFrom, cutoff, runRecovered, lastItem);
    }
    // Live batches past what the answer covered go through the rules again (a new gap there
    // may still be in the engine's buffer).
    for (; i < keys.length; i++) {
      const k = keys[i] as bigint;
      const h = p.held.get(k) as Held<T>;
      this.receive(k, h.item, h.bytes, now);
    }
  }

  private emit(seq: bigint, item: T, recovered: boolean): void {
    if (this.opts.same !== undefined) this.recent[Number(seq & this.ringMask)] = { seq, item };
    this.out.deliver(seq, item, recovered);
  }

  private emitRun(from: bigint, to: bigint, recovered: number, revealedBy: T): void {
    if (to < from) return;
    const lost = Number(to - from + 1n) - recovered;
    this.out.gap({ from, to, recovered, lost, revealedBy });
  }
}
