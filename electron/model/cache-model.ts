// The model behind the screens: true counts, per-second rates over event time, residency per
// source and medium, the hash forest with chains and an event ring. Fed one IngestRecord at a
// time, live and when a file is replayed. Pure Node, no I/O.

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
} from '../../shared/api-types';
import type { EventRecord, GapRecord, ResetRecord, UndecodedRecord } from '../../shared/events';
import { storeIsChain } from '../../shared/events';
import { missingCase, type IngestRecord } from '../../shared/records';
import { BinTable } from './bin-table';
import { ChartClock } from '../../shared/chart-clock';
import type { BlockNode } from './block-node';
import { sourceBit } from './block-node';
import { ChainViews, type ChainGeneration } from './chain-views';
import { computeChains, pageChains, pathSummary, searchForest } from './chains';
import { EventRing, type EventLineReader, type LineBytes } from './event-ring';
import { BatchIds } from '../collections/batch-ids';
import { NO_ID, SharedHashIds } from '../collections/shared-hash-ids';
import { Forest } from './forest';
import { NODE_MASK, NONE } from './node-table';
import { hashMatcher } from './hash-query';
import { Residency, UNSPECIFIED_MEDIUM, type ResidentSlot, type SlotMaker } from './residency';
import { ResidentIdSlot, slotBit } from './resident-id-slot';
import { SETTLE_SEC, buildSeries, type SeriesView } from './series';
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
  /** Resident blocks of the source (a level), for its line on the residency chart. */
  resident: number;
  /**
   * Per medium the source stored or removed in: its resident blocks there (a level). The
   * per-medium chart sums these over the sources present, so a removed source takes its history.
   */
  residentIn: Map<string, { row: number; slot: ResidentSlot<number> }>;
  /** The bits of its slots in the forest's table.slots (see resident-id-slot.ts). */
  slotMask: number;
  /** Whether every slot of the source has a bit: then slotMask answers "resident in the source". */
  allSlotsBits: boolean;
  /** Event time of the source's last level write (its last batch), null before one. */
  levelTs: number | null;
  /**
   * The chart time of its first batch (null before one): its rates are over no longer than it is
   * known, its first second only from that batch on.
   */
  firstTs: number | null;
}

/** What one source contributed to the totals: a removed source takes its share with it. */
interface SourceCounts {
  stored: number;
  removed: number;
  events: number;
  clears: number;
  gaps: number;
  lost: number;
  recovered: number;
  undecoded: number;
}

const zeroCounts = (): SourceCounts => ({
  stored: 0,
  removed: 0,
  events: 0,
  clears: 0,
  gaps: 0,
  lost: 0,
  recovered: 0,
  undecoded: 0,
});

/** Tuning knobs (defaults suit an hour of a busy engine). */
export interface CacheModelOptions {
  ringSize?: number;
  /** Reads back the event lines apply() is given (the session format's reader). */
  readEventLine?: EventLineReader;
  evictedCap?: number;
  maxBins?: number;
  /** The hash id table, shared with an analysis fed the same records (see ModelAndAnalysis). */
  hashIds?: SharedHashIds;
}

/** Everything the screens show, fed one record at a time. */
export class CacheModel {
  private readonly bins: BinTable;
  /** Keyed by the forest's ids: a resident block is always a known one. */
  private readonly residency: Residency<number>;
  private readonly forest: Forest;
  private readonly ring: EventRing;
  /** Sources in order of first appearance; the index is the source's bit in block masks. */
  private readonly sourceIds: string[] = [];
  /** Sources taken out of every total (removed connections); their index stays reserved. */
  private readonly removed = new Set<string>();
  private readonly sourceRows = new Map<string, SourceRows>();
  private readonly counts = new Map<string, SourceCounts>();
  private readonly mediumIds: string[] = [];
  private readonly markers: Marker[] = [];
  /** The charts' latest time (chart-clock.ts: a lone outlier does not move it). */
  private latestTs: number | null = null;
  private readonly clock = new ChartClock();
  private readonly pendingUndecoded = new Map<string, number>();
  private chainCache: ChainGeneration | null = null;
  /** Per Chains view, the chains of its latest live page (what it holds once it holds). */
  private readonly views = new ChainViews();

  /** The batch's look-up when no caller did it (a model fed alone). */
  private readonly ownIds: BatchIds;

  constructor(opts: CacheModelOptions = {}) {
    this.bins = new BinTable(opts.maxBins);
    const hashIds = opts.hashIds ?? new SharedHashIds();
    this.forest = new Forest(opts.evictedCap, hashIds);
    this.ownIds = new BatchIds(hashIds);
    this.residency = new Residency<number>(this.slotMaker());
    this.ring = new EventRing(opts.ringSize, { readLine: opts.readEventLine });
  }

  /** Resident sets keyed by the forest's ids. */
  private slotMaker(): SlotMaker<number> {
    const table = this.forest.table;
    return (total, ofSource, ofMedium, index) =>
      new ResidentIdSlot(total, ofSource, ofMedium, table, slotBit(index));
  }

  /**
   * Sets again what a state snapshot leaves out (its functions, state-snapshot.ts): the model
   * read back from one answers as the one written. `readLine`: the event log's line reader.
   */
  reattach(readLine: EventLineReader | null): void {
    this.residency.reattach(this.slotMaker());
    this.ring.reattach(readLine);
    this.views.reattach(Date.now);
  }

  /**
   * Apply one record of one source, in seq order for that source. `lines`: a batch's events as
   * lines readEventLine reads (the recording's, as strings or bytes), kept for the event log
   * instead of the records. `ids`: the batch's hashes looked up in this model's hash id table
   * already (ModelAndAnalysis), sparing the forest its own look-ups.
   */
  apply(r: IngestRecord, lines?: readonly string[] | LineBytes, ids?: BatchIds): void {
    switch (r.k) {
      case 'batch':
        if (lines !== undefined && 'buf' in lines) {
          // The live path's lines, as bytes: copied into the ring's arena without a string.
          this.ring.pushLines(r.events, lines);
        } else {
          for (let i = 0; i < r.events.length; i += 1) {
            this.ring.push(r.events[i] as EventRecord, lines?.[i]);
          }
        }
        if (ids !== undefined) return this.applyBatch(r.events, ids);
        return this.ownIds.lookUp(r.events, (own) => this.applyBatch(r.events, own));
      case 'gap':
        return this.applyGap(r.rec);
      case 'reset':
        return this.applyReset(r.rec);
      case 'undecoded':
        return this.applyUndecoded(r.rec);
      case 'event-error':
        // Counted by the source (its counters) and kept in the event log's neighbourhood: nothing here.
        return;
      default:
        missingCase(r);
    }
  }

  /**
   * Charts `source`'s batches from now on at their ts plus `seconds`: its clock is that far off the
   * others' (chart-clock.ts). The forest, the events and the analysis' figures keep its own times.
   */
  setClockOffset(source: string, seconds: number): void {
    this.clock.setOffset(source, seconds);
  }

  /**
   * Takes a source out of every total (a removed connection): its residency, its counts, its
   * rows in rates and residency (per source and its share per medium), its markers and its holds
   * in the forest. Its rows in the bin table stay allocated but unread.
   */
  removeSource(source: string): void {
    const idx = this.sourceIds.indexOf(source);
    if (idx < 0) return;
    this.releaseAll(source, idx, this.latestTs ?? 0, false);
    this.forest.forgetSource(idx);
    this.removed.add(source);
    this.clock.remove(source);
    this.ring.removeSource(source);
    this.sourceRows.delete(source);
    this.counts.delete(source);
    this.pendingUndecoded.delete(source);
    const kept = this.markers.filter((m) => m.source !== source);
    this.markers.splice(0, this.markers.length, ...kept);
  }

  private applyBatch(records: EventRecord[], ids: BatchIds): void {
    if (records.length === 0) return;
    const first = records[0] as EventRecord;
    const rows = this.rowsOf(first.source);
    // The charts' time of the batch: its ts, unless it is held as a suspect (chart-clock.ts).
    const placed = this.clock.place(first.source, first.ts);
    const ts = placed.at;
    if (placed.outlier !== null)
      this.markOutlier(first.source, placed.outlier, placed.streamAt, ts);
    rows.firstTs ??= ts;
    this.bins.add(rows.batches, ts, 1);
    // A batch is one source's: its rows, counts and index are looked up once, not per event.
    const c = this.countsOf(first.source);
    const srcIdx = this.sourceIds.indexOf(first.source);
    for (let i = 0; i < records.length; i += 1) {
      const rec = records[i] as EventRecord;
      const at = ids.start[i] as number;
      if (rec.source === first.source) this.applyEvent(rec, ts, rows, c, srcIdx, ids, at);
      else {
        this.applyEvent(
          rec,
          ts,
          this.rowsOf(rec.source),
          this.countsOf(rec.source),
          this.sourceIds.indexOf(rec.source),
          ids,
          at,
        );
      }
    }
    this.flushPending(first.source, ts);
    // Only this batch's source changed its residency: the others' levels carry forward.
    this.bins.set(rows.resident, ts, this.residency.ofSource(first.source));
    rows.levelTs = Math.max(ts, rows.levelTs ?? ts);
    for (const { row, slot } of rows.residentIn.values()) this.bins.set(row, ts, slot.size);
  }

  /**
   * Marks a lone batch (stamped ts) far from its source's clock (at `streamTs` on it), charted at
   * that clock's time (`at`: with the source's offset, chart-clock.ts).
   */
  private markOutlier(source: string, ts: number, streamTs: number, at: number): void {
    const off = Math.abs(ts - streamTs);
    const span =
      off >= 2 * 86400
        ? `${Math.round(off / 86400).toLocaleString('en-US')} days`
        : `${Math.round(off / 3600)} h`;
    this.mark({
      t: at,
      kind: 'clock',
      source,
      detail: `one batch stamped ${span} ${ts > streamTs ? 'ahead of' : 'behind'} its stream (ts ${ts}): charted at the stream's time`,
    });
  }

  /** A run of missing sequence numbers: counted and marked. */
  private applyGap(g: GapRecord): void {
    const rows = this.rowsOf(g.source);
    const c = this.countsOf(g.source);
    c.gaps += 1;
    c.lost += g.lost;
    c.recovered += g.recovered;
    const detail = `seq ${g.from}–${g.to} missing: ${g.recovered} recovered, ${g.lost} lost`;
    const m: Marker = { t: this.clock.peek(g.source, g.at), kind: 'gap', source: g.source, detail };
    // The batch before the gap was the source's last one applied (unless the record says when it
    // was): the lost ones lie in between.
    const since = g.since === undefined ? rows.levelTs : this.clock.peek(g.source, g.since);
    if (g.lost > 0 && since !== null && since < m.t) m.from = since;
    this.mark(m);
  }

  /**
   * A publisher restart (seq back to 0): a new engine process with an empty cache, so what the old
   * one held is no longer resident. Marked, not counted as a gap; no lifetimes are taken.
   */
  private applyReset(r: ResetRecord): void {
    this.rowsOf(r.source);
    // A new engine process: its clock is followed afresh from its first batch.
    this.clock.forget(r.source);
    const at = this.clock.peek(r.source, r.at);
    this.mark({
      t: at,
      kind: 'reset',
      source: r.source,
      detail: `publisher restarted after seq ${r.previousSeq}`,
    });
    // The forest keeps the engine's own times; the charts' levels are at `at`.
    this.releaseAll(r.source, this.sourceIds.indexOf(r.source), r.at, false);
    const rows = this.rowsOf(r.source);
    // The old engine's blocks were resident up to the restart: empty the levels at its second
    // (the new engine's first batch), never at the last event before an outage, which would
    // redraw the whole outage as empty. Never before this source's last level either: that level,
    // later in the table, would carry the old blocks past the restart.
    const ts = Math.max(at, rows.levelTs ?? at);
    this.bins.set(rows.resident, ts, 0);
    for (const { row } of rows.residentIn.values()) this.bins.set(row, ts, 0);
  }

  /** An undecodable message: counted, binned at the latest event time (its own time is receive time). */
  private applyUndecoded(u: UndecodedRecord): void {
    const rows = this.rowsOf(u.source);
    this.countsOf(u.source).undecoded += 1;
    if (this.latestTs !== null) this.bins.add(rows.undecoded, this.latestTs, 1);
    else this.pendingUndecoded.set(u.source, (this.pendingUndecoded.get(u.source) ?? 0) + 1);
  }

  /**
   * Totals and rates. `atTs` is the event time to take as now: the live view moves it on while a
   * stream is silent, so rates fall to zero instead of freezing at their last value.
   */
  kpis(atTs?: number, staleSources: ReadonlySet<string> = new Set()): Kpis {
    const rate = this.windowRates(null, atTs);
    const t = zeroCounts();
    for (const c of this.counts.values())
      for (const key of Object.keys(t) as (keyof SourceCounts)[]) t[key] += c[key];
    let stale = 0;
    for (const s of staleSources) stale += this.residency.ofSource(s);
    return {
      storedBlocks: t.stored,
      removedBlocks: t.removed,
      residentBlocks: this.residency.total(),
      staleResidentBlocks: stale,
      storedPerSec: rate.storedPerSec,
      removedPerSec: rate.removedPerSec,
      events: t.events,
      clears: t.clears,
      gaps: t.gaps,
      lost: t.lost,
      recovered: t.recovered,
      undecoded: t.undecoded,
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
    return this.sourceIds.filter((s) => !this.removed.has(s));
  }

  /** Latest event time seen (seconds), null before the first event. */
  nowTs(): number | null {
    return this.latestTs;
  }

  /**
   * The end of the last second charted, null before the first event. A file's rates are read as
   * live ones would be at that moment: its last second is where its recording stopped, not a
   * whole one, as the second still filling is not live (its charts still draw it).
   */
  endTs(): number | null {
    const span = this.bins.span();
    return span ? span.last + 1 : null;
  }

  /** Rates and residency over a range, at most maxPoints points, with markers; `nowTs`: live (see buildSeries). */
  series(q: SeriesQuery, nowTs?: number): Series {
    return buildSeries(this.seriesView(), q, nowTs);
  }

  /** A known block by its hash (resident or remembered after eviction). */
  block(hash: string): BlockNode | undefined {
    return this.forest.get(hash);
  }

  /** Every known block. */
  *blocks(): IterableIterator<[string, BlockNode]> {
    for (const [hash, id] of this.forest.entries()) yield [hash, this.forest.view(id)];
  }

  /**
   * Chains filtered, sorted and paged: as they are now, or, for a view that holds its list
   * (q.hold), as they were for its live page on screen (q.generation), or else its latest.
   * `note`: the page is the view's (an export's is not), so a live one is what it holds next.
   */
  chains(q: ChainQuery, note = true): ChainPage {
    const hash = q.hash?.trim() ?? '';
    let gen: ChainGeneration;
    let renewed = false;
    // The view whose list is held, if this is such a query.
    const holding = q.hold === true ? q.view : undefined;
    const held = holding === undefined ? undefined : this.views.get(holding, q.generation);
    if (held !== undefined && held.hash === hash) gen = held;
    else {
      // A held view forgotten (unused too long) holds the chains now, and its page says so; a new
      // hash filter is a new question, answered now.
      renewed = holding !== undefined && held === undefined;
      gen = this.chainRows(hash);
      if (q.view !== undefined && note) this.views.set(q.view, gen);
    }
    let bit: number | null = null;
    if (q.source !== undefined && q.source !== '') {
      const idx = this.sourceIds.indexOf(q.source);
      bit = idx < 0 ? 0 : sourceBit(idx);
    }
    const page = { ...pageChains(gen.rows, q, bit), generation: gen.version };
    return renewed ? { ...page, renewed } : page;
  }

  /** The chains now for a hash filter, computed once per version of the forest. */
  private chainRows(hash: string): ChainGeneration {
    const last = this.chainCache;
    if (last?.version === this.forest.version && last.hash === hash) return last;
    const rows = computeChains(this.forest, (m) => this.namesOf(m), hashMatcher(hash));
    this.chainCache = { version: this.forest.version, hash, rows };
    return this.chainCache;
  }

  /** One chain (by its leaf hash), blocks root first with their history. */
  chain(id: string): ChainDetail | null {
    const path = this.forest.path(id);
    if (path.length === 0) return null;
    return {
      summary: pathSummary(this.forest, path, (m) => this.namesOf(m)),
      blocks: path.map((n) => {
        const block = this.forest.view(n);
        return blockHistory(block, this.namesOf(block.srcMask));
      }),
    };
  }

  /** Known blocks matching a hash or prefix (decimal or hex), bounded. */
  search(text: string): HashMatch[] {
    return searchForest(this.forest, text);
  }

  /** The newest events held in memory, filtered and paged. */
  events(q: EventQuery): EventPage {
    // beforeTs is a time on the charts (a click on one): each source's events are placed there
    // with its clock offset, as the charts place them.
    const page = this.ring.query(q, (source, ts) => this.clock.shifted(source, ts));
    // How long ago an event was is read against the charts' now: its time on their axis too.
    for (const row of page.rows) row.chartTs = this.clock.shifted(row.source, row.ts);
    return page;
  }

  /**
   * Bytes of the model's typed arrays by part (the forest's columns, the event log, the rate bins,
   * the resident sets), for the memory figures of /metrics. The hash id table shared with the
   * analysis is not among them (ModelAndAnalysis counts it once).
   */
  memoryParts(): Record<string, number> {
    return {
      forest: this.forest.bytes(),
      event_log: this.ring.bytes(),
      rate_bins: this.bins.bytes(),
      model_resident_sets: this.residency.bytes(),
    };
  }

  /** Blocks forgotten after eviction to keep the forest bounded. */
  forgottenBlocks(): number {
    return this.forest.forgotten;
  }

  /**
   * One event of the source whose rows, counts and index (in sourceIds) are given; its hashes'
   * shared ids start at `at` in ids.sids (see BatchIds): a store's parent's, then its blocks'.
   */
  private applyEvent(
    rec: EventRecord,
    chartTs: number,
    rows: SourceRows,
    c: SourceCounts,
    srcIdx: number,
    ids: BatchIds,
    at: number,
  ): void {
    c.events += 1;
    // The charts' clock moves with chartTs; the forest keeps the event's own ts.
    if (this.latestTs === null || chartTs > this.latestTs) this.latestTs = chartTs;
    const ev = rec.event;
    const sids = ids.sids;
    if (ev.type === 'BlockStored') {
      const n = ev.block_hashes.length;
      c.stored += n;
      this.bins.add(rows.stored, chartTs, n);
      const slot = this.slotOf(rec.source, rows, ev.medium);
      const medium = this.forest.mediumId(ev.medium);
      // A store that is no chain (an offload tier's set of blocks) links none of its blocks.
      const chain = storeIsChain(ev);
      // The named parent (NO_ID: none), then after the first block the block before.
      let parent = sids[at] as number;
      let prev = parent === NO_ID ? NONE : this.forest.idOfSid(parent);
      for (let k = at + 1; k <= at + n; k += 1) {
        const sid = sids[k] as number;
        const id = this.forest.store(sid, parent, rec.ts, medium, ev.block_size, prev, chain);
        if (slot.add(id)) this.forest.addHolder(id, srcIdx);
        if (chain) {
          parent = sid;
          prev = id;
        }
      }
    } else if (ev.type === 'BlockRemoved') {
      const n = ev.block_hashes.length;
      c.removed += n;
      this.bins.add(rows.removed, chartTs, n);
      const slot = this.slotOf(rec.source, rows, ev.medium);
      for (let k = at; k < at + n; k += 1) {
        // A resident block is always known (the forest forgets only blocks resident nowhere).
        const id = this.forest.idOfSid(sids[k] as number);
        if (id !== NONE && slot.delete(id))
          this.release(rec.source, srcIdx, id, rec.ts, true, rows);
      }
    } else {
      c.clears += 1;
      this.bins.add(rows.clears, chartTs, 1);
      this.mark({ t: chartTs, kind: 'clear', source: rec.source, detail: 'all blocks cleared' });
      this.releaseAll(rec.source, srcIdx, rec.ts, true);
    }
  }

  /**
   * A (source, medium) no longer holds block id; `evicted` says whether that was an eviction (a
   * lifetime). `rows`: the source's, when it has them (its slot bits answer for its media).
   */
  private release(
    source: string,
    srcIdx: number,
    id: number,
    ts: number,
    evicted: boolean,
    rows: SourceRows | undefined,
  ): void {
    const p = this.forest.table.page(id);
    const o = id & NODE_MASK;
    // holders counts (source, medium) pairs: with this one the last, no other medium of source has it.
    const stillInSource =
      (p.holders[o] as number) > 1 &&
      (rows?.allSlotsBits === true
        ? ((p.slots[o] as number) & rows.slotMask) !== 0
        : this.residency.inSource(source, id));
    this.forest.removeHolder(id, srcIdx, stillInSource, ts, evicted);
  }

  /** Empties every medium of source (a clear, a restart, a removed connection). */
  private releaseAll(source: string, srcIdx: number, ts: number, evicted: boolean): void {
    const rows = this.sourceRows.get(source);
    for (const set of this.residency.clear(source).values())
      for (const id of set) this.release(source, srcIdx, id, ts, evicted, rows);
  }

  private seriesView(): SeriesView {
    return {
      bins: this.bins,
      sources: this.sources(),
      media: this.mediumIds,
      sourceRows: this.sourceRows,
      markers: this.markers,
    };
  }

  private countsOf(source: string): SourceCounts {
    let c = this.counts.get(source);
    if (!c) {
      c = zeroCounts();
      this.counts.set(source, c);
    }
    return c;
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
    // Live (atTs), over whole seconds only, as the charts: the second still filling would read low.
    const to = atTs === undefined ? span.last : Math.floor(atTs - SETTLE_SEC) - 1;
    if (to < span.first) return { storedPerSec: 0, removedPerSec: 0 };
    // A source known for 3 s is rated over those 3 s, not over 10 with 7 empty ones; and over the
    // part of its first second from its first batch on (it joined at 0.7 s: 0.3 s of the second),
    // which read 42 blocks/s of 1,600 at first and 1,453 when nine seconds were whole. The total,
    // likewise from the first batch of the sources present.
    const known = source === null ? this.firstTs() : (this.sourceRows.get(source)?.firstTs ?? null);
    const from = Math.max(
      span.first,
      known === null ? span.first : Math.floor(known),
      to - KPI_WINDOW_SEC + 1,
    );
    if (to < from) return { storedPerSec: 0, removedPerSec: 0 };
    const secs = known !== null && from === Math.floor(known) ? to + 1 - known : to - from + 1;
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

  /** The chart time of the first batch of the sources present, null before one. */
  private firstTs(): number | null {
    let first: number | null = null;
    for (const id of this.sourceIds) {
      const ts = this.sourceRows.get(id)?.firstTs ?? null;
      if (ts !== null && (first === null || ts < first)) first = ts;
    }
    return first;
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
        resident: this.bins.addRow('level'),
        residentIn: new Map(),
        slotMask: 0,
        allSlotsBits: true,
        levelTs: null,
        firstTs: null,
      };
      this.sourceRows.set(source, rows);
      if (!this.sourceIds.includes(source)) this.sourceIds.push(source);
      this.removed.delete(source);
    }
    return rows;
  }

  /** The source's resident set in a medium, and its residency row there (made on first use). */
  private slotOf(source: string, rows: SourceRows, medium: string | null): ResidentSlot<number> {
    const m = medium ?? UNSPECIFIED_MEDIUM;
    let level = rows.residentIn.get(m);
    if (!level) {
      const slot = this.residency.slot(source, m);
      level = { row: this.bins.addRow('level'), slot };
      rows.residentIn.set(m, level);
      const bit = slot instanceof ResidentIdSlot ? slot.bit : 0;
      rows.slotMask |= bit;
      if (bit === 0) rows.allSlotsBits = false;
      if (!this.mediumIds.includes(m)) this.mediumIds.push(m);
    }
    return level.slot;
  }

  private namesOf(mask: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.sourceIds.length && i < 31; i += 1) {
      if (mask & (1 << i)) out.push(this.sourceIds[i] as string);
    }
    return out;
  }
}
