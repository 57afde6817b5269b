// One rule for a batch seen again in a file, for the session reader and the capture importer
// alike, as the live sequencer has it (DESIGN "Faults": a batch whose seq was already applied is
// a duplicate, counted and not applied). Files hold each source's batches in seq order, so per
// source it keeps the highest seq seen and the batch still open, nothing that grows.

/** What to do with one event line. */
export type SeqVerdict =
  /** The next event of the open batch, or the first of a new one: apply it. */
  | 'apply'
  /** Its batch (or this very event of the open batch) was already applied: count, skip. */
  | 'duplicate'
  /** The seq went back to 0, or far back: a publisher restart. Apply it as a new run. */
  | 'restart';

/** How far back a seq may go and still be a duplicate rather than a restart (the sequencer's). */
export const RESTART_WINDOW = 64;

interface SourceSeqs {
  max: number;
  open: number;
  /** Event indexes seen in the open batch (null for lines that carry none). */
  idxs: Set<number>;
}

/** Tells apply, duplicate and restart apart for the event lines of a file, in file order. */
export class SeqDedup {
  private readonly bySource = new Map<string, SourceSeqs>();
  /** Event lines found to be duplicates. */
  duplicates = 0;

  /** The verdict for an event of `seq` (idx: its place in the batch, when the line says). */
  event(source: string, seq: number, idx: number | null): SeqVerdict {
    const s = this.bySource.get(source);
    if (s === undefined) {
      this.bySource.set(source, { max: seq, open: seq, idxs: idxSet(idx) });
      return 'apply';
    }
    if (seq === s.open) {
      if (idx === null) return 'apply';
      if (s.idxs.has(idx)) return this.duplicate();
      s.idxs.add(idx);
      return 'apply';
    }
    if (seq > s.max) {
      s.max = seq;
      s.open = seq;
      s.idxs = idxSet(idx);
      return 'apply';
    }
    if ((seq === 0 && s.max > 0) || s.max - seq > RESTART_WINDOW) {
      this.bySource.set(source, { max: seq, open: seq, idxs: idxSet(idx) });
      return 'restart';
    }
    return this.duplicate();
  }

  /** The highest seq seen of a source (for the reset record of a restart), or null. */
  maxSeq(source: string): number | null {
    return this.bySource.get(source)?.max ?? null;
  }

  /** A reset record for source: whatever seq comes next starts a new run. */
  reset(source: string): void {
    this.bySource.delete(source);
  }

  private duplicate(): 'duplicate' {
    this.duplicates += 1;
    return 'duplicate';
  }
}

function idxSet(idx: number | null): Set<number> {
  return idx === null ? new Set() : new Set([idx]);
}
