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
  | 'restart';

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
  /** The ts of the run's first batch read. */
  since: number;
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
      s = newSource(seq, ts);
      this.bySource.set(source, s);
      this.read(s, seq, idx, ts);
      return 'restart';
    }
    if (seq > s.max) s.max = seq;
    return this.read(s, seq, idx, ts) ?? this.duplicate();
  }

  /** Marks an event of seq read: 'apply', or null when it (or its batch) was read already. */
  private read(s: SourceSeqs, seq: number, idx: number | null, ts: number): 'apply' | null {
    const slot = seq % SLOTS;
    const seen = s.seqs[slot] === seq;
    const idxs = s.idxs[slot] ?? null;
    if (!seen) {
      s.history.note(seq, ts);
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
    startOver: false,
  };
}
