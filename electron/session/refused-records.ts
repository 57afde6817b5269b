// What a recording's full queue refused, kept as counts (never the lines: that would be the
// unbounded memory the bound is there to prevent), so that once the queue takes lines again the
// file gets a marker where they are missing: one gap line per source over the seqs of the events
// it refused, with `lost` the batches concerned. A reopened file then shows that stretch as a gap
// (an older reader too: the extra field `not_recorded` is ignored by readers, a note for people).

import type { GapRecord } from '../../shared/events';

interface SourceLoss {
  from: number;
  to: number;
  /** Seqs (batches) with a refused event: events of a batch arrive together, so a change is a new one. */
  batches: number;
  lastSeq: number;
  events: number;
  /** Event time of the last refused event, seconds. */
  at: number;
}

/** The refused stretch since the file last took a line. */
export class RefusedRecords {
  private readonly bySource = new Map<string, SourceLoss>();
  /** Refused lines other than events (gaps, resets, undecoded, event errors, source names). */
  private others = 0;

  /** Something was refused and no marker has been written for it yet. */
  get pending(): boolean {
    return this.bySource.size > 0 || this.others > 0;
  }

  /** An event line of `source`, batch `seq` at event time `ts`, was refused. */
  event(source: string, seq: number, ts: number): void {
    const loss = this.bySource.get(source);
    if (loss === undefined) {
      this.bySource.set(source, {
        from: seq,
        to: seq,
        batches: 1,
        lastSeq: seq,
        events: 1,
        at: ts,
      });
      return;
    }
    if (seq !== loss.lastSeq) loss.batches += 1;
    loss.lastSeq = seq;
    loss.from = Math.min(loss.from, seq);
    loss.to = Math.max(loss.to, seq);
    loss.events += 1;
    loss.at = ts;
  }

  /** A line that is not an event was refused. */
  other(): void {
    this.others += 1;
  }

  /**
   * The marker lines, one per source (refused lines that are no events are counted on the first);
   * none when only such lines were refused (they carry no seq range to mark).
   */
  markerLines(): string[] {
    let others = this.others;
    const lines: string[] = [];
    for (const [source, loss] of this.bySource) {
      const gap: GapRecord = {
        source,
        from: loss.from,
        to: loss.to,
        recovered: 0,
        lost: loss.batches,
        at: loss.at,
      };
      const note = { events: loss.events, other_records: others, why: 'recording queue full' };
      others = 0;
      lines.push(JSON.stringify({ k: 'gap', ...gap, not_recorded: note }));
    }
    return lines;
  }

  /** The markers are in the file: start counting afresh. */
  clear(): void {
    this.bySource.clear();
    this.others = 0;
  }
}
