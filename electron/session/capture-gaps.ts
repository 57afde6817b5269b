// The seqs a capture's source skipped. A capture may hold a batch after later ones (a consumer that
// printed a batch its replay gave back when it came): until the source's seqs have gone
// RESTART_WINDOW past a gap, a batch of it may still come (further back, a seq is a restart or a
// duplicate, never late), so the gap stays open and its record waits. It is given when the seqs
// pass it, at the source's restart or at the end of the file: the batches that came late as
// recovered, the others as lost.

import type { GapRecord } from '../../shared/events';
import { RESTART_WINDOW } from './seq-dedup';

interface OpenGap {
  from: number;
  to: number;
  /** Event time of the batch that revealed it, and of the source's batch before it. */
  at: number;
  since: number | null;
  /** Seqs of it that came late. */
  came: Set<number>;
}

/** Open gaps per source, each given to onGap once it can no longer fill. */
export class CaptureGaps {
  private readonly open = new Map<string, OpenGap[]>();

  constructor(private readonly onGap: (g: GapRecord) => void) {}

  /** Seqs from..to of source are missing, as the batch at `at` revealed (since: the one before). */
  missing(source: string, from: number, to: number, at: number, since: number | null): void {
    let gaps = this.open.get(source);
    if (gaps === undefined) this.open.set(source, (gaps = []));
    gaps.push({ from, to, at, since, came: new Set() });
  }

  /** A batch of source with a seq below its highest: true when an open gap was waiting for it. */
  came(source: string, seq: number): boolean {
    const gap = this.open.get(source)?.find((g) => g.from <= seq && seq <= g.to);
    if (gap === undefined || gap.came.has(seq)) return false;
    gap.came.add(seq);
    return true;
  }

  /** Source's highest seq is now max: the gaps no late batch can reach any more are given. */
  passed(source: string, max: number): void {
    const gaps = this.open.get(source);
    if (gaps === undefined) return;
    while (gaps.length > 0 && max - (gaps[0] as OpenGap).to > RESTART_WINDOW) {
      this.give(source, gaps.shift() as OpenGap);
    }
  }

  /**
   * The source's last gap was none (the batch that revealed it was a line out of place): forgets it
   * and returns where it began (null when source has none open).
   */
  dropLast(source: string): number | null {
    return this.open.get(source)?.pop()?.from ?? null;
  }

  /** Gives every open gap of source (a restart), or of every source (the end of the file). */
  close(source?: string): void {
    for (const [s, gaps] of this.open) {
      if (source !== undefined && s !== source) continue;
      for (const g of gaps) this.give(s, g);
      this.open.delete(s);
    }
  }

  private give(source: string, g: OpenGap): void {
    const recovered = g.came.size;
    const lost = g.to - g.from + 1 - recovered;
    const rec: GapRecord = { source, from: g.from, to: g.to, recovered, lost, at: g.at };
    if (g.since !== null) rec.since = g.since;
    this.onGap(rec);
  }
}
