// The analysis model: true counts, per-second rates over event time, residency per source and
// medium, the hash forest with chains, an event ring and derived figures. Pure Node, no I/O.

import type {
  ChainDetail,
  ChainPage,
  ChainQuery,
  EventPage,
  EventQuery,
  HashMatch,
  Kpis,
  Marker,
  Series,
  SeriesQuery,
} from '../../shared/contract';
import type {
  EventErrorRecord,
  EventRecord,
  GapRecord,
  ResetRecord,
  UndecodedRecord,
} from '../../shared/events';
import { BinTable } from './bin-table';
import type { BlockNode } from './block-node';
import { sourceBit } from './block-node';
import { computeChains, pageChains, searchForest, type ChainRow } from './chains';
import { DerivedCounters, popcount, type DerivedFigures } from './derived';
import { EventRing } from './event-ring';
import { Forest } from './forest';
import { hashMatcher } from './hash-query';
import { Residency, UNSPECIFIED_MEDIUM } from './residency';
import { buildSeries } from './series';
import { blockHistory } from './block-history';

/** Seconds of event time behind the storedPerSec / removedPerSec figures. */
export const KPI_WINDOW_SEC = 10;
const MAX_MARKERS = 10_000;

/** Per-source row indexes in the bin table. */
export interface SourceRows {
  stored: number;
  removed: number;
  clears: number;
  batches: number;
  undecoded: number;
}

/** Tuning knobs (defaults suit an hour of a busy engine). */
export interface CacheModelOptions {
  ringSize?: number;
  evictedCap?: number;
  thrashWindowSec?: number;
  maxBins?: number;
}

/** Everything the screens show, fed one record at a time. */
export class CacheModel {
  readonly bins: BinTable;
  readonly residency = new Residency();
  readonly forest: Forest;
  readonly ring: EventRing;
  readonly derivedCounters: DerivedCounters;
  readonly sourceIds: string[] = [];
  readonly sourceRows = new Map<string, SourceRows>();
  readonly mediumIds: string[] = [];
  readonly mediumRows = new Map<string, number>();
  readonly markers: Marker[] = [];
  private latestTs: number | null = null;
  private readonly pendingUndecoded = new Map<string, number>();
  private readonly c = {
    stored: 0,
    removed: 0,
    events: 0,
    clears: 0,
    gaps: 0,
    lost: 0,
    recovered: 0,
    undecoded: 0,
  };
  private chainCache: { version: number; hash: string; rows: ChainRow[] } | null = null;

  constructor(opts: CacheModelOptions = {}) {
    this.bins = new BinTable(opts.maxBins);
    this.forest = new Forest(opts.evictedCap);
    this.ring = new EventRing(opts.ringSize);
    this.derivedCounters = new DerivedCounters(opts.thrashWindowSec);
  }

  /** Apply one decoded batch of one source, in seq order. */
  applyBatch(records: EventRecord[]): void {
    if (records.length === 0) return;
    const first = records[0] as EventRecord;
    const rows = this.rowsOf(first.source);
    this.bins.add(rows.batches, first.ts, 1);
    for (const rec of records) this.applyEvent(rec);
    this.flushPending(first.source, first.ts);
    this.writeLevels(first.ts);
  }

  /** A run of missing sequence numbers: counted and marked. */
  applyGap(g: GapRecord): void {
    this.rowsOf(g.source);
    this.c.gaps += 1;
    this.c.lost += g.lost;
    this.c.recovered += g.recovered;
    const detail = `seq ${g.from}–${g.to} missing: ${g.recovered} recovered, ${g.lost} lost`;
    this.mark({ t: g.at, kind: 'gap', source: g.source, detail });
  }

  /** A publisher restart (seq back to 0): marked, not counted as a gap. */
  applyReset(r: ResetRecord): void {
    this.rowsOf(r.source);
    this.mark({
      t: r.at,
      kind: 'reset',
      source: r.source,
      detail: `publisher restarted after seq ${r.previousSeq}`,
    });
  }

  /** An undecodable message: counted, binned at the latest event time (its own time is receive time). */
  applyUndecoded(u: UndecodedRecord): void {
    const rows = this.rowsOf(u.source);
    this.c.undecoded += 1;
    if (this.latestTs !== null) this.bins.add(rows.undecoded, this.latestTs, 1);
    else this.pendingUndecoded.set(u.source, (this.pendingUndecoded.get(u.source) ?? 0) + 1);
  }

  /** One bad event of a good batch. */
  applyEventError(_e: EventErrorRecord): void {
    this.derivedCounters.eventErrors += 1;
  }

  /**
   * Totals and rates. `atTs` is the event time to take as now: the live view moves it on while a
   * stream is silent, so rates fall to zero instead of freezing at their last value.
   */
  kpis(atTs?: number): Kpis {
    const rate = this.windowRates(null, atTs);
    return {
      storedBlocks: this.c.stored,
      removedBlocks: this.c.removed,
      residentBlocks: this.residency.total(),
      storedPerSec: rate.storedPerSec,
      removedPerSec: rate.removedPerSec,
      events: this.c.events,
      clears: this.c.clears,
      gaps: this.c.gaps,
      lost: this.c.lost,
      recovered: this.c.recovered,
      undecoded: this.c.undecoded,
    };
  }

  /** Rates over the last KPI_WINDOW_SEC and resident blocks of one source. */
  sourceStats(
    source: string,
    atTs?: number,
  ): {
    storedPerSec: number;
    removedPerSec: number;
    residentBlocks: number;
  } {
    const rate = this.windowRates(source, atTs);
    return {
      storedPerSec: rate.storedPerSec,
      removedPerSec: rate.removedPerSec,
      residentBlocks: this.residency.ofSource(source),
    };
  }

  /** Media seen, in order of first appearance. */
  media(): string[] {
    return [...this.mediumIds];
  }

  /** Sources seen, in order of first appearance. */
  sources(): string[] {
    return [...this.sourceIds];
  }

  /** Latest event time seen (seconds), null before the first event. */
  nowTs(): number | null {
    return this.latestTs;
  }

  /** Rates and residency over a range, at most maxPoints points, with markers. */
  series(q: SeriesQuery): Series {
    return buildSeries(this, q);
  }

  /** Chains filtered, sorted and paged. */
  chains(q: ChainQuery): ChainPage {
    const hash = q.hash?.trim() ?? '';
    if (
      !this.chainCache ||
      this.chainCache.version !== this.forest.version ||
      this.chainCache.hash !== hash
    ) {
      const rows = computeChains(this.forest, (m) => this.namesOf(m), hashMatcher(hash));
      this.chainCache = { version: this.forest.version, hash, rows };
    }
    let bit: number | null = null;
    if (q.source !== undefined && q.source !== '') {
      const idx = this.sourceIds.indexOf(q.source);
      bit = idx < 0 ? 0 : sourceBit(idx);
    }
    return pageChains(this.chainCache.rows, q, bit);
  }

  /** One chain (by its leaf hash), blocks root first with their history. */
  chain(id: string): ChainDetail | null {
    const path = this.forest.path(id);
    if (path.length === 0) return null;
    const blocks = path.map((n) => blockHistory(n, this.namesOf(n.srcMask)));
    let mask = 0;
    let restores = 0;
    for (const n of path) {
      mask |= n.srcMask;
      restores += n.restores;
    }
    const resident = blocks.filter((b) => b.resident).length;
    return {
      summary: {
        id,
        root: (path[0] as BlockNode).hash,
        leaf: id,
        depthBlocks: path.length,
        depthTokens: path.reduce((s, n) => s + n.tokens, 0),
        residentBlocks: resident,
        evictedBlocks: path.length - resident,
        restores,
        sources: this.namesOf(mask),
        firstSeen: Math.min(...path.map((n) => n.firstStored)),
        lastSeen: Math.max(...path.map((n) => n.lastSeen)),
      },
      blocks,
    };
  }

  /** Known blocks matching a hash or prefix (decimal or hex), bounded. */
  search(text: string): HashMatch[] {
    return searchForest(this.forest, text);
  }

  /** The newest events held in memory, filtered and paged. */
  events(q: EventQuery): EventPage {
    return this.ring.query(q);
  }

  /** Reuse, thrash, lifetimes, shared blocks. */
  derived(): DerivedFigures {
    return this.derivedCounters.snapshot(this.forest.nodes.size, this.forest.forgotten);
  }

  private applyEvent(rec: EventRecord): void {
    this.c.events += 1;
    this.ring.push(rec);
    if (this.latestTs === null || rec.ts > this.latestTs) this.latestTs = rec.ts;
    const rows = this.rowsOf(rec.source);
    const srcIdx = this.sourceIds.indexOf(rec.source);
    const ev = rec.event;
    if (ev.type === 'BlockStored') {
      const n = ev.block_hashes.length;
      this.c.stored += n;
      this.bins.add(rows.stored, rec.ts, n);
      const medium = this.mediumOf(ev.medium);
      if (ev.parent_block_hash !== null) {
        this.derivedCounters.storesWithParent += 1;
        if (this.residency.inSource(rec.source, ev.parent_block_hash))
          this.derivedCounters.reuseStores += 1;
      }
      let parent = ev.parent_block_hash;
      for (const h of ev.block_hashes) {
        const { node, restore, lastRemoved } = this.forest.store(
          h,
          parent,
          rec.ts,
          ev.medium,
          ev.block_size,
        );
        if (restore) this.derivedCounters.restore(rec.ts, lastRemoved);
        if (this.residency.store(rec.source, medium, h)) {
          const before = popcount(node.srcMask);
          this.forest.addHolder(node, srcIdx);
          if (before === 1 && popcount(node.srcMask) === 2) this.derivedCounters.sharedBlocks += 1;
        }
        parent = h;
      }
    } else if (ev.type === 'BlockRemoved') {
      const n = ev.block_hashes.length;
      this.c.removed += n;
      this.bins.add(rows.removed, rec.ts, n);
      const medium = this.mediumOf(ev.medium);
      for (const h of ev.block_hashes) {
        if (this.residency.remove(rec.source, medium, h))
          this.release(rec.source, srcIdx, h, rec.ts);
      }
    } else {
      this.c.clears += 1;
      this.bins.add(rows.clears, rec.ts, 1);
      this.mark({ t: rec.ts, kind: 'clear', source: rec.source, detail: 'all blocks cleared' });
      for (const set of this.residency.clear(rec.source).values()) {
        for (const h of set) this.release(rec.source, srcIdx, h, rec.ts);
      }
    }
  }

  private release(source: string, srcIdx: number, h: string, ts: number): void {
    const node = this.forest.get(h);
    if (!node) return;
    const before = popcount(node.srcMask);
    this.forest.removeHolder(node, srcIdx, this.residency.inSource(source, h), ts);
    if (before === 2 && popcount(node.srcMask) === 1) this.derivedCounters.sharedBlocks -= 1;
    if (node.holders === 0 && node.lastLifetime !== null)
      this.derivedCounters.lifetime(node.lastLifetime);
  }

  private writeLevels(ts: number): void {
    for (const [medium, row] of this.mediumRows)
      this.bins.set(row, ts, this.residency.ofMedium(medium));
  }

  private flushPending(source: string, ts: number): void {
    const n = this.pendingUndecoded.get(source);
    if (n === undefined) return;
    this.pendingUndecoded.delete(source);
    this.bins.add(this.rowsOf(source).undecoded, ts, n);
  }

  private mark(m: Marker): void {
    this.markers.push(m);
    if (this.markers.length > MAX_MARKERS)
      this.markers.splice(0, this.markers.length - MAX_MARKERS);
  }

  private windowRates(
    source: string | null,
    atTs?: number,
  ): { storedPerSec: number; removedPerSec: number } {
    const span = this.bins.span();
    if (!span) return { storedPerSec: 0, removedPerSec: 0 };
    const to = atTs === undefined ? span.last : Math.max(span.last, Math.floor(atTs));
    const from = Math.max(span.first, to - KPI_WINDOW_SEC + 1);
    const secs = to - from + 1;
    let stored = 0;
    let removed = 0;
    for (const id of source === null ? this.sourceIds : [source]) {
      const rows = this.sourceRows.get(id);
      if (!rows) continue;
      stored += this.bins.sum(rows.stored, from, to);
      removed += this.bins.sum(rows.removed, from, to);
    }
    return { storedPerSec: stored / secs, removedPerSec: removed / secs };
  }

  private rowsOf(source: string): SourceRows {
    let rows = this.sourceRows.get(source);
    if (!rows) {
      rows = {
        stored: this.bins.addRow('sum'),
        removed: this.bins.addRow('sum'),
        clears: this.bins.addRow('sum'),
        batches: this.bins.addRow('sum'),
        undecoded: this.bins.addRow('sum'),
      };
      this.sourceRows.set(source, rows);
      this.sourceIds.push(source);
    }
    return rows;
  }

  private mediumOf(medium: string | null): string {
    const m = medium ?? UNSPECIFIED_MEDIUM;
    if (!this.mediumRows.has(m)) {
      this.mediumRows.set(m, this.bins.addRow('level'));
      this.mediumIds.push(m);
    }
    return m;
  }

  private namesOf(mask: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.sourceIds.length && i < 31; i += 1) {
      if (mask & (1 << i)) out.push(this.sourceIds[i] as string);
    }
    return out;
  }
}
