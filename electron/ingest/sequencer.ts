// Per-source ordering of a publisher's batches: gaps, duplicates, restarts and replay merge.
// Pure: no sockets, no timers. The caller feeds live arrivals, replay frames as they arrive,
// the end of each replay exchange, and the clock (tick).
//
// With `last` the highest seq settled (delivered, or counted lost) and `liveHigh` the highest
// seq seen on the live stream:
// - the first batch ever seen is delivered as is (we joined mid-stream: not a gap), unless the
//   caller said the stream starts after now (`expectStart()`): then it is read from seq 0;
// - seq = last + 1 is delivered at once;
// - seq > last + 1 opens a gap. Without replay the missing seqs are lost at once and the batch
//   delivered. With replay, this and later live batches are held (never read as anything else)
//   and one replay exchange asks from last + 1. Its frames are applied as they arrive: a frame
//   that fills the next hole is delivered, held live batches behind it follow; a frame that
//   skips ahead tells that the engine no longer holds what it skipped: lost, counted once. The
//   exchange is over when nothing is held any more (its remaining frames are not needed), at
//   its end marker, or when it makes no progress for `replayIdleMs`. With `same`, an exchange
//   (a gap's or a probe's) asks from `last` itself: an answer whose batch under `last` is
//   another one tells that the publisher restarted while we were not reading (a paused
//   consumer, a disconnect) and its new run has passed our last seq, or that the replay endpoint
//   is another publisher's (a wrong port). Only the live stream tells them apart: the answer goes
//   on to the first batch held live, which a restarted engine holds too, byte for byte. Then it
//   is a RESET, and the new run is asked for from seq 0 (what the live stream missed of it, a
//   gap); read as a gap of the old run, the new engine's blocks were added to the old one's.
//   Another batch there, or none, is a FOREIGN answer: said, never applied, the gap lost. A
//   probe's answer (nothing held) cannot be told so: it changes nothing, and the next batch live
//   opens a gap that tells. Nor can one that starts past what the probe asked for (the check, or
//   `last` + 1): it is not applied either;
// - a replayed seq held live must be the same batch (with `same`): another is a FOREIGN answer;
// - every replayed seq is checked against the request: below its start, not above the previous
//   frame of the answer, or beyond the newest seq seen live: rejected (counted, never applied,
//   never moving `lost`). A hole inside an answer (frames dropped on the way) is asked for
//   again, at most three times. A frame beyond the newest seq ends the exchange: a replay answer is
//   in seq order, so nothing after it can fill a hole. A bad exchange (rejected frames, idle,
//   failed) settles what is held, holes lost, and asks nothing more for it; a clean one may
//   ask once more for a hole the live stream revealed after the engine answered;
// - `probe()` (a quiet source) asks once for anything after `last`, to find a loss at the end
//   of a burst; it is allowed again only after a new live batch. Its answer can hold batches
//   whose live copies are still on the way (the answer overtook them): a replayed frame newer
//   than every live arrival is delivered at once but stays *ahead* of the live stream, counted
//   as nothing yet. Its live copy, when it comes, is taken silently (not a duplicate, not a
//   gap). What the live stream skips in that range, or what is still ahead when the live stream
//   passes it, when the source stays quiet for another probe period (`probe()` again), or when
//   it closes or restarts, is what the live stream missed: recovered, in the same run;
// - a live seq at or below `liveHigh` is a DUPLICATE or a RESET: a RESET when more than
//   `resetWindow` (default 64) below `liveHigh`; within the window, with `same(a, b)` (KvSource:
//   equal payload bytes) a DUPLICATE only if it matches the batch delivered under that seq,
//   without `same` a RESET only for seq 0. A live seq above `liveHigh` but not above `last`
//   is the live stream catching up with what a replay already delivered: a duplicate, never a
//   restart. After a reset the new run is expected from 0 (a missed start shows as a gap);
// - held batches past `maxHeldBatches` / `maxHeldBytes` give the exchange up;
// - a live seq past MAX_SEQ (not exact as a JS number: no counter of batches gets there) or more
//   than MAX_SEQ_JUMP past `liveHigh` is a bad frame: reported, never delivered, never moving
//   `last` or `liveHigh`, so one garbled seq cannot swallow the stream or inflate `lost`.
import { HeldBatches } from './held-batches';

/** The largest seq taken as real: past it a seq is not exact as a number (2^53 - 1). */
export const MAX_SEQ = BigInt(Number.MAX_SAFE_INTEGER);
/** The largest forward jump taken as a gap (2^40 batches: 35 years at 1,000 a second). */
export const MAX_SEQ_JUMP = 2 ** 40;

export interface SequencerOptions<T = unknown> {
  /** A replay endpoint exists: hold and ask instead of recording gaps lost at once. */
  replay: boolean;
  /** An exchange with no accepted frame for this long is over (default 3000 ms). */
  replayIdleMs?: number;
  /** A probe accepts seqs at most this far past `last` (default 100,000: ten default buffers). */
  probeReach?: bigint;
  maxHeldBatches?: number;
  maxHeldBytes?: number;
  resetWindow?: bigint;
  /** Whether two batches are the same message (a true duplicate), e.g. equal payload bytes. */
  same?: (a: T, b: T) => boolean;
}

/** A run of seqs the live stream missed, once settled: how many came back, how many are gone. */
export interface SettledGap<T> {
  from: bigint;
  to: bigint;
  recovered: number;
  lost: number;
  /** The live batch right after the run, or null when the run ended with a replay's tail. */
  revealedBy: T | null;
}

/** What the sequencer tells its owner, synchronously, in delivery order. */
export interface SequencerOut<T> {
  deliver(seq: bigint, item: T, recovered: boolean): void;
  gap(g: SettledGap<T>): void;
  reset(previousSeq: bigint, item: T): void;
  duplicate(seq: bigint): void;
  /** A replay frame was refused: outside the request, out of order, or unreadable. */
  rejected(): void;
  /**
   * A replay answer is not this stream's: its batch under `seq` is not the one the live stream
   * delivered or holds (the replay endpoint is another publisher's). Nothing of it is applied.
   */
  foreign(seq: bigint): void;
  /** A live batch whose seq is absurd (see MAX_SEQ, MAX_SEQ_JUMP); `newest` the newest real seq. */
  badSeq(seq: bigint, item: T, newest: bigint | null): void;
  /**
   * Ask the replay endpoint for every batch with seq >= fromSeq; feed its frames to
   * replayedBatch(id, ...) and its end to replayEnded(id, ...).
   */
  request(id: number, fromSeq: bigint): void;
}

interface Exchange<T> {
  id: number;
  kind: 'gap' | 'probe';
  start: bigint;
  /** Newest seq known when asked: the engine held at least up to here when it answered. */
  upTo: bigint;
  lastReplayed: bigint | null;
  lastProgress: number;
  rejected: number;
  /** Times this gap was asked again because an answer lost frames on the way. */
  retries: number;
  /** The settled seq asked again to tell the same run from a restarted one (null: none). */
  check: bigint | null;
  /**
   * The batch delivered under `check`, taken when asked: a probe's answer can come after the
   * live stream went on past the ring of recent batches, and not finding it there is not a
   * restart.
   */
  checkItem: T | undefined;
  /**
   * The answer's batch under `check`, another than the one delivered: a restart if the answer's
   * copy of the first held batch is that batch (confirmRestart), else a foreign answer.
   */
  suspect: T | null;
}

/** Seqs next..to, delivered from a replay before their live copies came (see the header). */
interface Ahead {
  next: bigint;
  to: bigint;
}

/** How often an answer torn in transit is asked again before its holes count as lost. */
const MAX_RETRIES = 3;

export class Sequencer<T> {
  private last: bigint | null = null;
  private liveHigh: bigint | null = null;
  private readonly held = new HeldBatches<T>();
  private ex: Exchange<T> | null = null;
  /** Start of the run of missed seqs being settled (null: none open) and its recovered count. */
  private runFrom: bigint | null = null;
  private runRecovered = 0;
  /** Delivered from a replay, waiting for their live copies; always ends at `last`. */
  private ahead: Ahead | null = null;
  private probeAllowed = false;
  /**
   * A restart found by a replay answer (restartedMeanwhile), said just before the new run's first
   * output, with its first batch: the reset is dated at the new run's start, not at the batch
   * that revealed it (which came as late as our last seq). `revealedBy` dates it if none comes.
   */
  private pendingReset: { previous: bigint; revealedBy: T } | null = null;
  private nextId = 1;
  private readonly idleMs: number;
  private readonly probeReach: bigint;
  private readonly maxBatches: number;
  private readonly maxBytes: number;
  private readonly resetWindow: bigint;
  /**
   * Recently delivered batches by seq (a ring of resetWindow slots), for `same`: seqs and items
   * in two arrays, so that a delivery makes no object (one per message was garbage to collect).
   */
  private readonly recentSeq: (bigint | undefined)[];
  private readonly recentItem: (T | undefined)[];
  private readonly ringMask: bigint;

  constructor(
    private readonly opts: SequencerOptions<T>,
    private readonly out: SequencerOut<T>,
  ) {
    this.idleMs = opts.replayIdleMs ?? 3000;
    this.probeReach = opts.probeReach ?? 100_000n;
    this.maxBatches = opts.maxHeldBatches ?? 100_000;
    this.maxBytes = opts.maxHeldBytes ?? 64 * 1024 * 1024;
    this.resetWindow = opts.resetWindow ?? 64n;
    // A power of two at least as large as the window, so a slot is `seq & mask`.
    let slots = 1n;
    while (slots < this.resetWindow + 1n) slots <<= 1n;
    this.ringMask = slots - 1n;
    const ring = opts.same === undefined ? 0 : Number(slots);
    this.recentSeq = new Array<undefined>(ring);
    this.recentItem = new Array<undefined>(ring);
  }

  /** Highest seq settled so far (null before the first batch). */
  get lastSeq(): bigint | null {
    return this.last;
  }

  /** A replay exchange is open. */
  get waiting(): boolean {
    return this.ex !== null;
  }

  /** Live batches held behind an open gap. */
  get heldCount(): number {
    return this.held.size;
  }

  /**
   * The publisher's stream starts after now, from seq 0 (it was not up when we subscribed): until
   * a first batch is settled, one past 0 is a gap from 0, as after a reset, not a mid-stream join.
   */
  expectStart(): void {
    if (this.last !== null) return;
    this.last = -1n;
    this.liveHigh = -1n;
  }

  /**
   * This source's stream was settled up to `seq` by an earlier subscription (a reconnect): the
   * next batch continues it, so what the engine published meanwhile is a gap (asked of replay,
   * else lost) and a seq at or below it a restart, never a mid-stream join that keeps the old
   * state and adds the new on top of it.
   */
  resumeAfter(seq: bigint, item?: T): void {
    if (this.last !== null) return;
    this.last = seq;
    this.liveHigh = seq;
    // Kept to tell, at the first gap's answer, whether the engine restarted meanwhile.
    if (item !== undefined) this.keep(seq, item);
  }

  /** The batch delivered under the last settled seq, when it is still kept (with `same`). */
  lastItem(): T | undefined {
    const last = this.last;
    return last !== null && this.kept(last) ? this.recentItem[this.slotOf(last)] : undefined;
  }

  /** A batch arrived on the live stream. */
  receive(seq: bigint, item: T, bytes: number, now: number): void {
    // Compared as numbers (exact below MAX_SEQ): a bigint subtraction per message allocates.
    const high = this.liveHigh;
    if (seq > MAX_SEQ || (high !== null && Number(seq) - Number(high) > MAX_SEQ_JUMP)) {
      this.out.badSeq(seq, item, high !== null && high >= 0n ? high : null);
      return;
    }
    this.probeAllowed = true;
    const last = this.last;
    if (last === null) {
      this.liveHigh = seq;
      this.advance(seq, item, false);
      return;
    }
    if (seq <= (high as bigint)) {
      if (this.held.has(seq)) this.out.duplicate(seq);
      else this.backwards(seq, item, bytes, now);
      return;
    }
    this.liveHigh = seq;
    if (this.ahead !== null && this.liveCopy(seq, item)) return;
    if (seq <= last) {
      // A replay delivered it before the live stream got here.
      this.out.duplicate(seq);
      return;
    }
    if (seq === last + 1n) {
      this.advance(seq, item, false);
      return;
    }
    if (!this.opts.replay) {
      this.advance(seq, item, false);
      return;
    }
    this.held.add(seq, item, bytes);
    if (this.ex === null) this.ask('gap', now);
    this.checkBounds();
  }

  /** One frame of the answer to request `id`; false when the exchange needs no more frames. */
  replayedBatch(id: number, seq: bigint, item: T, now: number): boolean {
    const ex = this.ex;
    if (ex === null || ex.id !== id) return false;
    if (seq < ex.start || (ex.lastReplayed !== null && seq <= ex.lastReplayed)) {
      this.reject(ex);
      return true;
    }
    const bound = ex.kind === 'gap' ? (this.liveHigh as bigint) : ex.start - 1n + this.probeReach;
    if (seq > bound) {
      this.reject(ex);
      this.endExchange(ex, false, now);
      return false;
    }
    if (ex.kind === 'probe' && ex.lastReplayed === null && seq > ex.start) {
      // A probe's answer that starts past what it asked for overlaps nothing of this stream: it
      // could be another engine's (a replay port one off), and nothing is held to tell. Applied,
      // another engine's batches were taken as this one's and its own live stream then read as
      // duplicates of them. Taken nowhere: if this engine did move on, its next batch live opens
      // a gap, whose answer the held batch checks.
      this.endExchange(ex, true, now);
      return false;
    }
    if (ex.check !== null) {
      const check = ex.check;
      ex.check = null;
      const same = this.opts.same;
      if (seq === check && same && !same(ex.checkItem as T, item)) {
        // Nothing held to tell a restart from another publisher's answer: take neither.
        if (this.held.size === 0) {
          this.endExchange(ex, true, now);
          return false;
        }
        ex.suspect = item;
        ex.lastReplayed = seq;
        ex.lastProgress = now;
        return true;
      }
    }
    if (ex.suspect !== null) return this.confirmRestart(ex, seq, item, now);
    const last = this.last as bigint;
    if (ex.lastReplayed !== null && seq > ex.lastReplayed + 1n && seq > last + 1n) {
      // A hole in the middle of an answer: the engine evicts only from the front of its buffer,
      // so these frames were dropped on the way (its ROUTER drops at its high-water mark). The
      // engine still holds them: ask again from the hole rather than calling them lost.
      this.ex = null;
      if (ex.retries < MAX_RETRIES) this.ask(ex.kind, now, ex.retries + 1);
      else this.endExchange(ex, false, now);
      return false;
    }
    ex.lastReplayed = seq;
    ex.lastProgress = now;
    if (seq <= last) return true; // the answer overlaps what is settled
    // The engine skipped what it no longer holds: settle up to here, holes lost.
    if (seq > last + 1n) {
      this.settleAhead();
      this.flushHeld(seq - 1n);
    }
    const live = this.held.firstSeq() === seq ? this.held.shift() : null;
    const same = this.opts.same;
    if (live !== null) {
      this.advance(seq, live.item, false);
      if (same && !same(live.item, item)) {
        this.foreignAnswer(ex, seq, now);
        return false;
      }
    } else if (seq > (this.liveHigh as bigint)) this.deliverAhead(seq, item);
    else this.advance(seq, item, true);
    this.drain();
    if (ex.kind === 'gap' && this.held.size === 0) {
      this.ex = null;
      return false;
    }
    return true;
  }

  /** A frame of the answer to `id` that carries no readable seq; false when no more are needed. */
  replayedGarbage(id: number): boolean {
    const ex = this.ex;
    if (ex === null || ex.id !== id) return false;
    this.reject(ex);
    return true;
  }

  /** The exchange `id` ended: `complete` = its end marker came; otherwise it timed out or failed. */
  replayEnded(id: number, complete: boolean, now: number): void {
    const ex = this.ex;
    if (ex === null || ex.id !== id) return;
    this.endExchange(ex, complete && ex.rejected === 0, now);
  }

  /**
   * The source went quiet: what a finished probe delivered ahead and no live copy confirmed is
   * settled as missed; otherwise ask once for anything after the last seq. True when a request
   * went out.
   */
  probe(now: number): boolean {
    if (!this.opts.replay || this.last === null || this.ex !== null) return false;
    if (this.ahead !== null) {
      this.settleAhead();
      this.closeRun(null);
      return false;
    }
    if (!this.probeAllowed) return false;
    this.probeAllowed = false;
    this.ask('probe', now);
    return true;
  }

  /** Give up on the open exchange: held batches are delivered, what is missing is lost. */
  giveUp(): void {
    this.ex = null;
    this.sayReset(null);
    // Live copies of what is ahead will not come any more (closing, or a restarted publisher).
    this.settleAhead();
    const tail = this.held.lastSeq();
    if (tail !== null) this.flushHeld(tail);
    this.closeRun(null);
  }

  /** Advance the clock: an exchange without progress for the idle time is over. */
  tick(now: number): void {
    const ex = this.ex;
    if (ex !== null && now - ex.lastProgress >= this.idleMs) this.endExchange(ex, false, now);
  }

  private ask(kind: Exchange<T>['kind'], now: number, retries = 0): void {
    const last = this.last as bigint;
    const high = this.liveHigh as bigint;
    // Asks for its last settled batch again, to check the run (see the header).
    const check = this.kept(last) ? last : null;
    const ex: Exchange<T> = {
      id: this.nextId++,
      kind,
      start: check ?? last + 1n,
      upTo: high > last ? high : last,
      lastReplayed: null,
      lastProgress: now,
      rejected: 0,
      retries,
      check,
      checkItem: check === null ? undefined : this.recentItem[this.slotOf(check)],
      suspect: null,
    };
    this.ex = ex;
    this.out.request(ex.id, ex.start);
  }

  private reject(ex: Exchange<T>): void {
    ex.rejected++;
    this.out.rejected();
  }

  /**
   * A frame of an answer whose batch under the last seq was another one: skipped up to the first
   * batch held live, whose copy in the answer tells a restart (the same batch) from another
   * publisher's answer. False when the exchange needs no more frames.
   */
  private confirmRestart(ex: Exchange<T>, seq: bigint, item: T, now: number): boolean {
    const first = this.held.firstSeq() as bigint;
    if (seq < first) {
      // The new run's, if it is one: asked again from 0 once that is known.
      ex.lastReplayed = seq;
      ex.lastProgress = now;
      return true;
    }
    const same = this.opts.same as (a: T, b: T) => boolean;
    if (seq === first && same(this.held.first() as T, item)) {
      this.restartedMeanwhile(ex.suspect as T, now);
      return false;
    }
    this.foreignAnswer(ex, seq, now);
    return false;
  }

  /**
   * The answer is not this stream's (see the header): said, its frame refused, and the exchange
   * ended as a bad one (held batches delivered, holes lost, nothing asked again until the
   * stream moves on).
   */
  private foreignAnswer(ex: Exchange<T>, seq: bigint, now: number): void {
    ex.suspect = null;
    this.out.foreign(seq);
    this.reject(ex);
    this.endExchange(ex, false, now);
  }

  private endExchange(ex: Exchange<T>, clean: boolean, now: number): void {
    if (ex.suspect !== null) {
      // It ended before the batch that would have told a restart (confirmRestart): a restarted
      // engine's answer would have held it (it was published before the engine was asked).
      ex.suspect = null;
      this.out.foreign(this.held.firstSeq() ?? ex.upTo);
      clean = false;
    }
    this.ex = null;
    // Held batches settle below, the reset before them; with none held it is said now.
    if (this.held.size === 0) this.sayReset(null);
    if (!clean) {
      // A bad answer settles everything held and asks nothing more until the stream moves on.
      this.probeAllowed = false;
      const tail = this.held.lastSeq();
      if (tail !== null) this.flushHeld(tail);
      this.closeRun(null);
      return;
    }
    // The engine answered with all it held from start: a hole up to what it had is gone.
    const cutoff =
      ex.lastReplayed !== null && ex.lastReplayed > ex.upTo ? ex.lastReplayed : ex.upTo;
    this.flushHeld(cutoff);
    this.drain();
    // A hole past that was revealed after the engine answered: ask once more.
    if (this.held.size > 0) this.ask('gap', now);
    else this.closeRun(null);
  }

  private checkBounds(): void {
    if (this.held.size > this.maxBatches || this.held.bytes > this.maxBytes) this.giveUp();
  }

  /** Deliver held batches up to `upTo` in order; what is missing up to there is lost. */
  private flushHeld(upTo: bigint): void {
    for (let f = this.held.firstSeq(); f !== null && f <= upTo; f = this.held.firstSeq()) {
      const e = this.held.shift();
      if (e !== null) this.advance(e.seq, e.item, false);
    }
    const last = this.last as bigint;
    if (upTo > last) {
      if (this.runFrom === null) this.runFrom = last + 1n;
      this.last = upTo;
    }
  }

  /** Deliver held batches that follow `last` without a hole. */
  private drain(): void {
    for (
      let f = this.held.firstSeq();
      f !== null && f === (this.last as bigint) + 1n;
      f = this.held.firstSeq()
    ) {
      const e = this.held.shift();
      if (e !== null) this.advance(e.seq, e.item, false);
    }
  }

  /**
   * The publisher restarted while we were not reading: `item`, its batch under `last`, is not the
   * one delivered, and the answer holds the first held batch (confirmRestart). What is held is
   * the new run's; the new run is asked for from seq 0.
   */
  private restartedMeanwhile(item: T, now: number): void {
    this.ex = null;
    this.settleAhead();
    this.closeRun(null);
    this.pendingReset = { previous: this.last as bigint, revealedBy: item };
    this.last = -1n;
    this.ask('gap', now);
  }

  private backwards(seq: bigint, item: T, bytes: number, now: number): void {
    const ref = this.liveHigh as bigint;
    let isReset: boolean;
    if (ref - seq > this.resetWindow) isReset = true;
    else if (this.opts.same === undefined) isReset = seq === 0n && ref > 0n;
    else isReset = !this.sameAsDelivered(seq, item);
    if (!isReset) {
      this.out.duplicate(seq);
      return;
    }
    this.giveUp();
    this.out.reset(this.last as bigint, item);
    // The new run counts from 0: a restart whose first batches we missed shows as a gap.
    this.last = -1n;
    this.liveHigh = -1n;
    this.receive(seq, item, bytes, now);
  }

  /** Settle `seq` (delivered live or recovered), closing or extending the run of missed seqs. */
  private advance(seq: bigint, item: T, recovered: boolean): void {
    this.sayReset(item);
    const last = this.last;
    if (last !== null && seq > last + 1n && this.runFrom === null) this.runFrom = last + 1n;
    if (recovered) {
      if (this.runFrom === null) this.runFrom = seq;
      this.runRecovered++;
    } else if (this.runFrom !== null) {
      this.last = seq - 1n;
      this.closeRun(item);
    }
    this.settle(seq, item, recovered);
  }

  /** `seq` is delivered: it is the last settled seq, kept for `same`. */
  private settle(seq: bigint, item: T, recovered: boolean): void {
    this.last = seq;
    this.keep(seq, item);
    this.out.deliver(seq, item, recovered);
  }

  /** Keeps the batch delivered under seq for `same` (a ring of recent seqs). */
  private keep(seq: bigint, item: T): void {
    if (this.opts.same === undefined) return;
    const slot = this.slotOf(seq);
    this.recentSeq[slot] = seq;
    this.recentItem[slot] = item;
  }

  /** Whether the batch delivered under seq is still kept (with `same`). */
  private kept(seq: bigint): boolean {
    return this.opts.same !== undefined && seq >= 0n && this.recentSeq[this.slotOf(seq)] === seq;
  }

  /** Whether item is the batch delivered under seq (false when that one is not kept). */
  private sameAsDelivered(seq: bigint, item: T): boolean {
    const same = this.opts.same;
    return (
      same !== undefined && this.kept(seq) && same(this.recentItem[this.slotOf(seq)] as T, item)
    );
  }

  private slotOf(seq: bigint): number {
    return Number(seq & this.ringMask);
  }

  /** A replayed `seq` (= last + 1) newer than every live arrival: delivered, counted later. */
  private deliverAhead(seq: bigint, item: T): void {
    this.sayReset(item);
    if (this.ahead === null) this.ahead = { next: seq, to: seq };
    else this.ahead.to = seq;
    this.settle(seq, item, true);
  }

  /**
   * A live batch while seqs are ahead: a copy of one of them is taken (true); the ahead seqs it
   * skipped were missed live and close the run before it. A batch past them all settles them.
   */
  private liveCopy(seq: bigint, item: T): boolean {
    const a = this.ahead as Ahead;
    if (seq > a.to) {
      this.settleAhead();
      return false;
    }
    if (seq < a.next) return false;
    if (seq > a.next) {
      if (this.runFrom === null) this.runFrom = a.next;
      this.runRecovered += Number(seq - a.next);
    }
    this.emitRun(seq - 1n, item);
    a.next = seq + 1n;
    if (a.next > a.to) this.ahead = null;
    return true;
  }

  /** What is still ahead is missed by the live stream (recovered by the replay): it joins the run. */
  private settleAhead(): void {
    const a = this.ahead;
    if (a === null) return;
    this.ahead = null;
    if (this.runFrom === null) this.runFrom = a.next;
    this.runRecovered += Number(a.to - a.next + 1n);
  }

  /** Report the open run of missed seqs, ending at `last`; not while seqs are ahead (it may go on). */
  private closeRun(revealedBy: T | null): void {
    if (this.ahead === null) this.emitRun(this.last as bigint, revealedBy);
  }

  /** Says a restart found by a replay answer, dated by `first` (the new run's first output). */
  private sayReset(first: T | null): void {
    const r = this.pendingReset;
    if (r === null) return;
    this.pendingReset = null;
    this.out.reset(r.previous, first ?? r.revealedBy);
  }

  /** Report the open run of missed seqs as ending at `to`. */
  private emitRun(to: bigint, revealedBy: T | null): void {
    this.sayReset(revealedBy);
    const from = this.runFrom;
    if (from === null) return;
    const recovered = this.runRecovered;
    this.runFrom = null;
    this.runRecovered = 0;
    if (to < from) return;
    this.out.gap({ from, to, recovered, lost: Number(to - from + 1n) - recovered, revealedBy });
  }
}
