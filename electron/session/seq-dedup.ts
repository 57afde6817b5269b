// One rule for a batch seen again in a file, for the session reader and the capture importer
// alike (DESIGN "Faults": a batch whose seq was already applied is a duplicate, counted and not
// applied). Per source it remembers the seqs of the last RESTART_WINDOW + 1 it could have seen,
// with the event indexes read of each: a seq behind the highest is a duplicate only where that
// batch (or that very event of it) was read. A high-water mark alone took one line whose seq was
// corrupted upwards for a read of every batch up to it, and dropped them. Each run's batches also
// keep their ts by seq (SeqHistory, bounded by the lines read). Going back to a seq read before
// under another ts is another batch: the publisher restarted (the sequencer compares payloads; a
// file's lines keep the batch's ts of them). Going back, even past the window, to a batch read
// under its very ts is that batch again, a duplicate: without it, one line copied to much later in
// a file started a new run there, and the resident blocks began again from empty. So does a line
// of an earlier run: a batch timed before this run's first cannot start a new one.
// A line moved far from its place starts no run either: one moved later (far back, never read, timed
// before the run's latest batch) is a batch out of order, not applied; one moved earlier (far
// ahead) is noticed when the run goes on behind it, timed after the batch before the jump: the run
// resumes there ('resume'). Each had begun a new run, its resident blocks from empty.

/** What to do with one event line. */
export type SeqVerdict =
  /** The next event of the open batch, or the first of a new one: apply it. */
  | 'apply'
  /** Its batch (or this very event of the open batch) was already applied: count, skip. */
  | 'duplicate'
  /**
   * The seq went back to 0, or far back, or back to a seq read under another ts: a publisher
   * restart. Apply it as a new run.
   */
  | 'restart'
  /**
   * The run goes on behind a forward jump of its seq (a line moved earlier in the file): apply it,
   * the highest seq is this one again.
   */
  | 'resume';

/** How far back a seq may go and still be a duplicate rather than a restart (the sequencer's). */
export const RESTART_WINDOW = 64;

interface SourceSeqs {
  max: number;
  /** The seq of the last event applied (lines without indexes: its next ones apply). */
  open: number;
  /** Per slot (seq modulo the window), the seq it holds and the event indexes read of it. */
  seqs: Float64Array;
  idxs: (Set<number> | null)[];
  /** The ts of the run's batches read, by seq: the slots' and further back. */
  history: SeqHistory;
  /** The ts of the run's first batch read, and its latest. */
  since: number;
  latest: number;
  /**
   * Where the run was before its seq jumped ahead past the window, until the next batch: its
   * highest seq and its latest ts then (null: no such jump, or a batch after it kept it).
   */
  beforeJump: { max: number; latest: number } | null;
  /**
   * Batches read out of place ahead of the run (lines moved earlier), by seq, with the event
   * indexes read: their other lines, where they belong, apply; and those skipped as out of order
   * (null). At most RESTART_WINDOW kept.
   */
  strays: Map<number, Set<number> | null>;
  /** The last batch found out of order (far back, never read, timed before the latest), or null. */
  late: { seq: number; ts: number } | null;
  /** Another recording was joined on: the next event starts a new run, whatever its seq. */
  startOver: boolean;
}

/** Batches of a run kept at most (16 bytes each): a copied line further back is a restart. */
export const HISTORY_BATCHES = 1 << 20;

/**
 * The ts of a run's batches by seq, in a table of (seq, ts) per slot at seq modulo its size. It
 * doubles up to HISTORY_BATCHES, and only while it holds at least half as many batches as slots:
 * a file whose seqs jump (a hostile one, say) cannot make it larger than its own lines.
 */
class SeqHistory {
  private seqs = new Float64Array(128).fill(-1);
  private tss = new Float64Array(128);
  private held = 0;

  /** The ts of the batch of seq read, or NaN when not known. */
  tsOf(seq: number): number {
    const slot = seq % this.seqs.length;
    return this.seqs[slot] === seq ? (this.tss[slot] as number) : NaN;
  }

  note(seq: number, ts: number): void {
    const size = this.seqs.length;
    if (this.seqs[seq % size] !== -1 && this.held >= size / 2 && size < HISTORY_BATCHES)
      this.grow();
    const slot = seq % this.seqs.length;
    if (this.seqs[slot] === -1) this.held += 1;
    this.seqs[slot] = seq;
    this.tss[slot] = ts;
  }

  private grow(): void {
    const { seqs, tss } = this;
    this.seqs = new Float64Array(2 * seqs.length).fill(-1);
    this.tss = new Float64Array(2 * seqs.length);
    this.held = 0;
    for (let i = 0; i < seqs.length; i += 1) {
      const seq = seqs[i] as number;
      if (seq === -1) continue;
      const slot = seq % this.seqs.length;
      if (this.seqs[slot] === -1) this.held += 1;
      this.seqs[slot] = seq;
      this.tss[slot] = tss[i] as number;
    }
  }
}

/** Slots of a source's seqs seen: every seq from max - RESTART_WINDOW to max has its own. */
const SLOTS = RESTART_WINDOW + 1;

/** Tells apply, duplicate and restart apart for the event lines of a file, in file order. */
export class SeqDedup {
  private readonly bySource = new Map<string, SourceSeqs>();
  /** Event lines found to be duplicates. */
  duplicates = 0;

  /**
   * The verdict for an event of `seq` in a batch of time `ts` (idx: its place in the batch, when
   * the line says).
   */
  event(source: string, seq: number, idx: number | null, ts: number): SeqVerdict {
    let s = this.bySource.get(source);
    if (s === undefined) {
      s = newSource(seq, ts);
      this.bySource.set(source, s);
    } else if (
      s.beforeJump !== null &&
      s.max - seq > RESTART_WINDOW &&
      resumes(s.beforeJump, seq, ts)
    ) {
      // The jump's batch was a line out of place: the run goes on from here, as it was.
      return this.resume(s, s.beforeJump, seq, idx, ts);
    } else if (
      s.startOver ||
      (seq < s.max && ((seq === 0 && s.open !== 0) || s.max - seq > RESTART_WINDOW)) ||
      // Back behind the batch last read, to a seq read under another ts. (A line whose seq was
      // corrupted upwards meets its true batch going forward, and stays a duplicate.)
      (seq < s.open && s.seqs[seq % SLOTS] === seq && s.history.tsOf(seq) !== ts)
    ) {
      // Back to a batch of this run read under the same ts: that batch again (a copied line); or
      // to one timed before this run began: a batch of an earlier run (a stale copy). (Within
      // the window, a batch never read is a late one of this run, as before.)
      if (!s.startOver && seq < s.max && (s.history.tsOf(seq) === ts || ts < s.since)) {
        if (seq !== s.open) s.open = -1;
        return this.duplicate();
      }
      // Far back to a batch never read, timed before the run's latest: a batch out of order; but
      // the batch after one such goes on from it (the run's highest seq was a line out of place).
      if (!s.startOver && seq !== 0 && seq < s.max && ts < s.latest && isNaN(s.history.tsOf(seq))) {
        const late = s.late;
        if (late !== null && seq > late.seq && seq - late.seq <= RESTART_WINDOW)
          return this.resume(s, { max: late.seq, latest: late.ts }, seq, idx, ts);
        s.late = { seq, ts };
        this.keepStray(s, seq, null);
        return this.duplicate();
      }
      s = newSource(seq, ts);
      this.bySource.set(source, s);
      this.read(s, seq, idx, ts);
      return 'restart';
    }
    // A line moved earlier is found out by the next batch after it; any other batch keeps the jump.
    if (s.beforeJump !== null && seq !== s.max) s.beforeJump = null;
    if (seq > s.max + RESTART_WINDOW) s.beforeJump = { max: s.max, latest: s.latest };
    if (seq > s.max) s.max = seq;
    return this.read(s, seq, idx, ts) ?? this.duplicate();
  }

  /** The run goes on at seq from where it was at `from` (past lines out of place). */
  private resume(
    s: SourceSeqs,
    from: { max: number; latest: number },
    seq: number,
    idx: number | null,
    ts: number,
  ): 'resume' | 'duplicate' {
    // The event indexes read of the batch that jumped ahead: its other lines, in place, apply.
    const slot = s.max % SLOTS;
    if (s.max > from.max && s.seqs[slot] === s.max) this.keepStray(s, s.max, s.idxs[slot] ?? null);
    s.max = Math.max(seq, from.max);
    s.latest = from.latest;
    s.beforeJump = null;
    s.late = null;
    return this.read(s, seq, idx, ts) === null ? this.duplicate() : 'resume';
  }

  private keepStray(s: SourceSeqs, seq: number, idxs: Set<number> | null): void {
    if (s.strays.size >= RESTART_WINDOW) s.strays.delete(s.strays.keys().next().value as number);
    s.strays.set(seq, idxs);
  }

  /** Marks an event of seq read: 'apply', or null when it (or its batch) was read already. */
  private read(s: SourceSeqs, seq: number, idx: number | null, ts: number): 'apply' | null {
    const slot = seq % SLOTS;
    const seen = s.seqs[slot] === seq;
    const idxs = s.idxs[slot] ?? null;
    const stray = seen || s.strays.size === 0 ? undefined : s.strays.get(seq);
    if (stray !== undefined && stray !== null && idx !== null && s.history.tsOf(seq) === ts) {
      // Its line that came out of place was read: the rest of the batch, in place, goes on.
      s.strays.delete(seq);
      s.seqs[slot] = seq;
      s.idxs[slot] = stray;
      if (stray.has(idx)) return null;
      stray.add(idx);
    } else if (!seen) {
      s.history.note(seq, ts);
      if (ts > s.latest) s.latest = ts;
      s.seqs[slot] = seq;
      s.idxs[slot] = idx === null ? null : new Set([idx]);
    } else if (idx === null || idxs === null) {
      // A line without an index can only be told from its batch's next ones while that is open.
      // A line of another batch closes it, a duplicate too: a copy's lines of the open batch
      // (a capture appended twice ends with the newest batch again) are read again, not next.
      if (seq !== s.open) {
        s.open = -1;
        return null;
      }
    } else if (idxs.has(idx)) return null;
    else idxs.add(idx);
    s.open = seq;
    return 'apply';
  }

  /** The highest seq seen of a source (for the reset record of a restart), or null. */
  maxSeq(source: string): number | null {
    return this.bySource.get(source)?.max ?? null;
  }

  /**
   * Whether a batch of seq was read in source's run out of place (or skipped as out of order), so
   * is not missing where it belonged.
   */
  readOutOfPlace(source: string, seq: number): boolean {
    return this.bySource.get(source)?.strays.has(seq) ?? false;
  }

  /** A reset record for source: whatever seq comes next starts a new run. */
  reset(source: string): void {
    this.bySource.delete(source);
  }

  /**
   * Another recording joined on: every source read so far starts a new run at its next event,
   * whatever its seq (the verdict 'restart').
   */
  startOverAll(): void {
    for (const s of this.bySource.values()) s.startOver = true;
  }

  private duplicate(): 'duplicate' {
    this.duplicates += 1;
    return 'duplicate';
  }
}

function newSource(seq: number, since: number): SourceSeqs {
  return {
    max: seq,
    open: -1,
    seqs: new Float64Array(SLOTS).fill(-1),
    idxs: [],
    history: new SeqHistory(),
    since,
    latest: since,
    beforeJump: null,
    late: null,
    strays: new Map(),
    startOver: false,
  };
}

/**
 * Whether seq, far behind the highest, goes on from where the run was before its jump ahead (within
 * the window of it, timed no earlier than its latest batch then).
 */
function resumes(before: { max: number; latest: number }, seq: number, ts: number): boolean {
  return Math.abs(seq - before.max) <= RESTART_WINDOW && ts >= before.latest;
}
