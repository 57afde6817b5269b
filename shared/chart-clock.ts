// Where a source's batches go on the charts' time axis. Event time is each engine's own (DESIGN:
// "normally epoch time, but do not assume it"), and the axis's now is the latest of it: one batch
// stamped a year ahead moved that now a year on, so every later batch fell out of the live window
// (rates read 0 for the rest of the session), and one stamped at 1.0 piled into the oldest bin.
//
// A batch more than JUMP_SEC from its source's previous one is held as a suspect: charted at the
// previous one's time, the axis's now not moved. The next batch decides: near the suspect, the
// clock really moved (a step, or an engine resuming after an idle spell) and is followed from
// there; near the old time, the suspect was a lone outlier, counted and marked. Nothing but the
// charts' placement changes (the model's rates, the analysis' re-stores over time): the model's and
// the analysis' figures keep every raw ts. It looks at the sources' own times only (no wall
// clock), so a session file charts as it did live.
//
// Sources whose clocks disagree (a host off by a minute, an engine stamping time since boot) are
// put on one axis by each source's clock offset: whole seconds to add, measured live as its
// batches arrive (electron/ingest/kv-source.ts) and written in the session, so a file charts as
// live did.

import { isEventTime } from './event-bounds';

/** A batch further than this from its source's previous one waits for the next to confirm it. */
export const JUMP_SEC = 3600;

interface SourceClock {
  /** Raw ts of the source's last batch followed. */
  last: number;
  /** Raw ts of a batch held as a suspect, if the last one was. */
  suspect: number | null;
}

/** What place() decided of a batch. */
export interface Placed {
  /** Where to chart it. */
  at: number;
  /** Where on its source's own clock (at without the source's offset). */
  streamAt: number;
  /** It was a suspect, charted at its source's previous time. */
  held: boolean;
  /** It settled the batch before as a lone outlier: that one's ts (raw), to mark. */
  outlier: number | null;
}

/** The charts' placement of each source's batches (see the header). */
export class ChartClock {
  private readonly clocks = new Map<string, SourceClock>();
  /** Seconds added to a source's times to chart them (absent: 0). */
  private readonly offsets = new Map<string, number>();

  /** Charts `source` from now on at its ts plus `seconds` (0: at its own ts). */
  setOffset(source: string, seconds: number): void {
    if (seconds === 0) this.offsets.delete(source);
    else this.offsets.set(source, seconds);
  }

  /** Where to chart `source`'s next batch, stamped ts (an event time), moving its clock on. */
  place(source: string, ts: number): Placed {
    const p = this.placeRaw(source, ts);
    p.at = this.shifted(source, p.streamAt);
    return p;
  }

  /** A time of source on the charts: with its offset, unless that leaves the event times (a hostile file's). */
  shifted(source: string, ts: number): number {
    const offset = this.offsets.get(source);
    if (offset === undefined) return ts;
    const at = ts + offset;
    return isEventTime(at) ? at : ts;
  }

  private placeRaw(source: string, ts: number): Placed {
    const c = this.clocks.get(source);
    if (c === undefined) {
      this.clocks.set(source, { last: ts, suspect: null });
      return { at: ts, streamAt: ts, held: false, outlier: null };
    }
    const suspect = c.suspect;
    c.suspect = null;
    if (Math.abs(ts - c.last) <= JUMP_SEC) {
      c.last = ts;
      return { at: ts, streamAt: ts, held: false, outlier: suspect };
    }
    if (suspect !== null && Math.abs(ts - suspect) <= JUMP_SEC) {
      // Two in a row agree: the source's clock moved.
      c.last = ts;
      return { at: ts, streamAt: ts, held: false, outlier: null };
    }
    c.suspect = ts;
    return { at: c.last, streamAt: c.last, held: true, outlier: suspect };
  }

  /** Where a record of `source` stamped ts goes, without moving its clock (gaps, restarts). */
  peek(source: string, ts: number): number {
    const c = this.clocks.get(source);
    return this.shifted(source, c === undefined || Math.abs(ts - c.last) <= JUMP_SEC ? ts : c.last);
  }

  /**
   * The source starts over (a restart, a removal): its next batch is followed as a first. Its
   * offset stays until it is set again (a restart's first batch measures it anew).
   */
  forget(source: string): void {
    this.clocks.delete(source);
  }

  /** A removed source: nothing of it is kept. */
  remove(source: string): void {
    this.clocks.delete(source);
    this.offsets.delete(source);
  }
}
