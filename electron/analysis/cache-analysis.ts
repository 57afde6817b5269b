// The cache analysis of DESIGN.md ("Analysis"): fed the same records as the model, in the order
// they were received, it keeps R and G per (source, medium) and the cross-source holdings, and
// reports new stores, announced hits, re-stores with their ghost distances, thrash, what-if
// capacity, lifetimes, the router's view and hot prefixes. Pure: no Electron, no I/O.

import type { AnalysisReport, InputCounts } from '../../shared/analysis-report';
import {
  DEFAULT_THRASH_WINDOW_S,
  KV_CACHE_GROUPS_TRACKED,
  MAX_ANALYSED_SOURCES,
  THRASH_WINDOWS_S,
} from '../../shared/analysis-report';
import {
  storeIsChain,
  UNSPECIFIED_MEDIUM,
  type BlockRemovedEvent,
  type BlockStoredEvent,
  type EventRecord,
} from '../../shared/events';
import { ChartClock } from '../../shared/chart-clock';
import { isEventTime, MAX_GROUP_IDX } from '../../shared/event-bounds';
import { BatchIds } from '../collections/batch-ids';
import type { DecimalParts } from '../collections/hash-ids';
import type { KeyRef } from '../collections/hash-key-set';
import { SharedHashIds } from '../collections/shared-hash-ids';
import { missingCase, type BatchMeta, type IngestRecord } from '../../shared/records';
import {
  newMedium,
  newSource,
  zeroInput,
  type Counters,
  type MediumState,
  type SourceState,
} from './analysis-state';
import { buildReport } from './build-report';
import type { GhostHit } from './ghost-list';
import { Holdings } from './holdings';
import { HotPrefixes } from './hot-prefixes';
import { LifetimeStats, type SamplePool } from './lifetime-stats';
import { RestoreBins } from './restore-series';

/** The engine's real capacity of one (source, medium), e.g. num_gpu_blocks from its metrics. */
export interface CapacityOverride {
  source: string;
  medium: string;
  blocks: number;
}

/** Tuning knobs; the defaults follow DESIGN.md. */
export interface CacheAnalysisOptions {
  /** Re-stores within this many seconds of their removal are thrash (default 60). */
  thrashWindowS?: number;
  capacities?: readonly CapacityOverride[];
  /** The hash id table, shared with a model fed the same records (see ModelAndAnalysis). */
  hashIds?: SharedHashIds;
  /** Ghost list bounds per (source, medium): for tests of the sampled path. */
  ghostExactCap?: number;
  ghostTailCap?: number;
  /**
   * Analyse this KV cache group alone: stores and removals of the others are counted per group
   * but not applied (a clear still empties the source). Undefined: every group, by hash.
   */
  group?: number;
}

/** The analysis' options a service or an open passes on: the group alone, where one is asked. */
export type AnalysisGroupOption = Pick<CacheAnalysisOptions, 'group'>;

/** A kv_cache_spec_kind as the report may show it: a short word (vLLM's are), else unnamed. */
const SPEC_KIND = /^[\w.-]{1,40}$/;

/**
 * A store's parent and first hash as the hot prefixes take them, read before the next store.
 * Module-level, not fields: an open's kept state is written with the analysis' fields, and V8
 * writes a number as an int or a double by how it is held, so an object one open never wrote
 * would make two opens of one file keep different bytes.
 */
const parentParts: DecimalParts = { hi: 0, lo: 0 };
const firstParts: DecimalParts = { hi: 0, lo: 0 };

/** Incremental cache analysis over ingest records. */
export class CacheAnalysis {
  readonly thrashWindowS: number;
  /** The one KV cache group analysed, null for every group. */
  readonly group: number | null;
  /** Batches of sources past the MAX_ANALYSED_SOURCES analysed at once, left out. */
  batchesPastSourceLimit = 0;
  /** Sources in order of first appearance. */
  readonly sources: SourceState[] = [];
  /** Media in the order their first lifetime came (the report's order). */
  private readonly lifetimeMedia = new Set<string>();
  /** Per medium, the merged lifetimes and the sample count they were merged at. */
  private readonly mergedLives = new Map<string, { n: number; stats: LifetimeStats }>();
  /** Per medium, the exact samples its sources' lifetimes keep between them. */
  private readonly lifePools = new Map<string, SamplePool>();
  /** Lifetime histograms of removed sources, kept for /metrics (a counter never goes down). */
  private readonly retiredLives = new Map<string, LifetimeStats[]>();
  hot = new HotPrefixes();
  /** Every source's re-stores over time (a removed source's share is subtracted). */
  series = new RestoreBins();
  /**
   * Where the series puts each source's batches: on the charts' axis, as the model's rates are
   * (a source's clock offset added, a lone outlier held). The figures keep every raw ts.
   */
  private readonly clock = new ChartClock();
  /** The chart time of the batch being applied (see clock). */
  private batchChartTs = 0;
  readonly capacities = new Map<string, number>();
  /** Over the sources there are now (each source's share is its `input`). */
  readonly input: InputCounts = zeroInput();
  /** Who holds each hash, its id, and its depth (blocks from the root) when its chain was seen. */
  readonly holdings: Holdings;
  /** Routing regret's candidate sources, reused across events. */
  private readonly candidates: number[] = [];
  private readonly bySource = new Map<string, SourceState>();
  /**
   * The analysis fed alone (`kvscope analyze`, the collector) looks each batch up itself as
   * ModelAndAnalysis does for both, so that the per-block code has one path: by shared id.
   */
  private readonly ownIds: BatchIds;
  /** The hash id table when this analysis made it (not shared with a model). */
  private readonly ownIdTable: SharedHashIds | null;
  private nextIdx = 0;

  constructor(private readonly opts: CacheAnalysisOptions = {}) {
    const t = opts.thrashWindowS ?? DEFAULT_THRASH_WINDOW_S;
    if (!Number.isFinite(t) || t < 0)
      throw new Error(`the thrash window must be a number of seconds >= 0, got ${t}`);
    this.thrashWindowS = t;
    const g = opts.group ?? null;
    if (g !== null && !(Number.isInteger(g) && g >= 0 && g <= MAX_GROUP_IDX))
      throw new Error(`the KV cache group must be a whole number 0 to ${MAX_GROUP_IDX}, got ${g}`);
    this.group = g;
    const hashIds = opts.hashIds ?? new SharedHashIds();
    this.ownIdTable = opts.hashIds === undefined ? hashIds : null;
    this.holdings = new Holdings(hashIds);
    this.ownIds = new BatchIds(hashIds);
    for (const c of opts.capacities ?? []) this.setCapacity(c.source, c.medium, c.blocks);
  }

  /**
   * Charts `source`'s re-stores from now on at their ts plus `seconds`: its clock is that far off
   * the others' (chart-clock.ts), as the model charts its rates.
   */
  setClockOffset(source: string, seconds: number): void {
    this.clock.setOffset(source, seconds);
  }

  /** The engine's real capacity of (source, medium) in blocks; null goes back to peak resident. */
  setCapacity(source: string, medium: string, blocks: number | null): void {
    const key = capacityKey(source, medium);
    if (blocks === null) {
      this.capacities.delete(key);
      return;
    }
    if (!Number.isInteger(blocks) || blocks <= 0)
      throw new Error(`a capacity must be a whole number of blocks > 0, got ${blocks}`);
    this.capacities.set(key, blocks);
  }

  /**
   * Applies one record, in the order received. `ids`: the batch's hashes looked up in this
   * analysis' hash id table already (ModelAndAnalysis), sparing it its own look-ups.
   */
  apply(r: IngestRecord, ids?: BatchIds): void {
    const source = r.k === 'batch' ? r.meta.source : r.rec.source;
    if (!this.bySource.has(source) && this.bySource.size >= MAX_ANALYSED_SOURCES) {
      if (r.k === 'batch') this.batchesPastSourceLimit += 1;
      return;
    }
    switch (r.k) {
      case 'batch': {
        if (ids !== undefined) return this.applyBatch(r.meta, r.events, ids);
        return this.ownIds.lookUp(r.events, (own) => this.applyBatch(r.meta, r.events, own));
      }
      case 'gap': {
        const own = this.sourceOf(r.rec.source).input;
        this.input.gaps += 1;
        own.gaps += 1;
        this.input.lostBatches += r.rec.lost;
        own.lostBatches += r.rec.lost;
        return;
      }
      case 'reset': {
        // A new engine process: its cache starts empty, like AllBlocksCleared, and its clock is
        // followed afresh from its first batch.
        const src = this.sourceOf(r.rec.source);
        this.clock.forget(r.rec.source);
        this.input.resets += 1;
        src.input.resets += 1;
        this.clearSource(src);
        return;
      }
      case 'undecoded':
        this.input.undecoded += 1;
        this.sourceOf(r.rec.source).input.undecoded += 1;
        return;
      case 'event-error':
        this.input.eventErrors += 1;
        this.sourceOf(r.rec.source).input.eventErrors += 1;
        return;
      default:
        missingCase(r);
    }
  }

  /**
   * Takes a source out of the analysis (a removed connection): its R, G, holdings and counters
   * go, so it leaves every total, the input's gaps and lost batches, the router's view and the
   * what-if table; the figures merged across sources (lifetimes per medium, thrash, hot prefixes,
   * the re-store series) are made of the sources left. Other sources' duplicate stores against it
   * stay: they happened.
   */
  removeSource(name: string): void {
    const src = this.bySource.get(name);
    if (!src) return;
    this.clearSource(src);
    // It holds nothing now: its holder slot can serve the next source.
    this.holdings.leave(src.slot);
    this.bySource.delete(name);
    this.clock.remove(name);
    // The input counts are of the sources there are: a removed source's events, batches and
    // losses leave them, as its events leave the view's.
    for (const k of Object.keys(src.input) as (keyof InputCounts)[]) this.input[k] -= src.input[k];
    this.sources.splice(this.sources.indexOf(src), 1);
    for (const m of src.media.values()) {
      if (m.life === null) continue;
      m.life.leavePool();
      const retired = this.retiredLives.get(m.medium) ?? [];
      // Its counts only: /metrics reads no more of it, and its samples go with the source.
      retired.push(LifetimeStats.merge([m.life], false));
      this.retiredLives.set(m.medium, retired);
    }
    // Made again from the sources left: its bins as fine as they need (subtracting kept the width).
    this.series.sumOf(this.sources.map((s) => s.series));
    this.hot.dropSource(src.idx);
    if (this.sources.length === 0) {
      // Nothing is left: the merged parts start again (and the series' start with them).
      this.series = new RestoreBins();
      this.hot = new HotPrefixes();
      this.lifetimeMedia.clear();
    }
  }

  /** Lifetimes per medium over the sources there are now, in the order media first had one. */
  lifetimes(): [string, LifetimeStats][] {
    const out: [string, LifetimeStats][] = [];
    for (const medium of this.lifetimeMedia) {
      const parts = this.lifeParts(medium);
      if (parts.length === 0) continue;
      if (parts.length === 1) {
        out.push([medium, parts[0] as LifetimeStats]);
        continue;
      }
      // Merged again only when a sample came (a report is made ~10 times a second).
      let n = 0;
      for (const p of parts) n += p.count;
      let merged = this.mergedLives.get(medium);
      if (merged?.n !== n) {
        merged = { n, stats: LifetimeStats.merge(parts) };
        this.mergedLives.set(medium, merged);
      }
      out.push([medium, merged.stats]);
    }
    return out;
  }

  /** Lifetime histograms per medium including removed sources' (for /metrics counters). */
  lifetimeCounters(): [string, LifetimeStats][] {
    const media = new Set([...this.lifetimeMedia, ...this.retiredLives.keys()]);
    return [...media].map((medium) => [
      medium,
      LifetimeStats.merge(
        [...this.lifeParts(medium), ...(this.retiredLives.get(medium) ?? [])],
        false,
      ),
    ]);
  }

  /** Thrash re-stores for each of THRASH_WINDOWS_S over the sources there are now. */
  thrashAt(): number[] {
    return THRASH_WINDOWS_S.map((_, i) => sum(this.sources, (s) => s.thrashAt[i] as number));
  }

  /** Reuse over the sources there are now. */
  reuse(): { storesWithParent: number; reuseStores: number } {
    return {
      storesWithParent: sum(this.sources, (s) => s.reuse.storesWithParent),
      reuseStores: sum(this.sources, (s) => s.reuse.reuseStores),
    };
  }

  private lifeParts(medium: string): LifetimeStats[] {
    const parts: LifetimeStats[] = [];
    for (const s of this.sources) {
      const life = s.media.get(medium)?.life;
      if (life) parts.push(life);
    }
    return parts;
  }

  /** Everything the Insights show, as plain bounded data. */
  report(): AnalysisReport {
    return buildReport(this);
  }

  /**
   * Bytes of the analysis' typed arrays by part, for the memory figures of /metrics. The hash id
   * table is among them only when the analysis made it (shared with a model, ModelAndAnalysis
   * counts it once).
   */
  memoryParts(): Record<string, number> {
    let ghosts = 0;
    let resident = 0;
    let lifetimes = 0;
    for (const s of this.sources)
      for (const m of s.mediaList) {
        ghosts += m.ghosts.bytes();
        resident += m.resident.bytes();
        lifetimes += m.life?.bytes() ?? 0;
      }
    for (const retired of this.retiredLives.values())
      for (const l of retired) lifetimes += l.bytes();
    return {
      ...(this.ownIdTable === null ? {} : { hash_ids: this.ownIdTable.bytes() }),
      ghost_lists: ghosts,
      analysis_holdings: this.holdings.bytes(),
      analysis_resident_sets: resident,
      lifetimes,
      hot_prefixes: this.hot.bytes(),
    };
  }

  /** |R| of (source, medium): the blocks resident there now. */
  residentOf(source: string, medium: string): number {
    return this.bySource.get(source)?.media.get(medium)?.resident.size ?? 0;
  }

  /** The capacity override of (source, medium), if any. */
  capacityOf(source: string, medium: string): number | undefined {
    return this.capacities.get(capacityKey(source, medium));
  }

  /** One batch, its hashes looked up in ids. */
  private applyBatch(meta: BatchMeta, events: readonly EventRecord[], ids: BatchIds): void {
    this.input.batches += 1;
    const src = this.sourceOf(meta.source);
    src.input.batches += 1;
    if (src.dpRank === null && meta.dpRank !== null) src.dpRank = meta.dpRank;
    // Placed as the model places the batch: by its first event's ts.
    const first = events[0];
    if (first !== undefined) this.batchChartTs = this.clock.place(meta.source, first.ts).at;
    for (let i = 0; i < events.length; i += 1)
      this.applyEvent(src, events[i] as EventRecord, ids.sids, ids.start[i] as number);
  }

  /** One event; its hashes' shared ids start at `at` in sids. */
  private applyEvent(src: SourceState, e: EventRecord, sids: Int32Array, at: number): void {
    this.input.events += 1;
    src.input.events += 1;
    // A time that is not a number (or absurd) cannot be placed: the event is skipped and counted.
    if (!isEventTime(e.ts)) {
      this.input.badTsEvents += 1;
      src.input.badTsEvents += 1;
      return;
    }
    const ev = e.event;
    switch (ev.type) {
      case 'BlockStored':
        if (this.inGroup(src, ev)) this.stored(src, e.ts, ev, sids, at);
        return;
      case 'BlockRemoved':
        if (this.inGroup(src, ev)) this.removed(src, e.ts, ev, sids, at);
        return;
      case 'AllBlocksCleared':
        this.input.clears += 1;
        src.input.clears += 1;
        this.clearSource(src);
        return;
      default:
        missingCase(ev);
    }
  }

  /** Counts a store or removal in its KV cache group; whether it is of the group analysed. */
  private inGroup(src: SourceState, ev: BlockStoredEvent | BlockRemovedEvent): boolean {
    const n = ev.group_idx ?? 0;
    const inGroup = this.group === null || n === this.group;
    let g = src.groups.get(n);
    if (g === undefined) {
      if (src.groups.size >= KV_CACHE_GROUPS_TRACKED) {
        src.groupsCapped = true;
        return inGroup;
      }
      g = { kind: null, slidingWindow: null, storedBlocks: 0, removedBlocks: 0 };
      src.groups.set(n, g);
    }
    if (ev.type === 'BlockRemoved') g.removedBlocks += ev.block_hashes.length;
    else {
      g.storedBlocks += ev.block_hashes.length;
      const kind = ev.kv_cache_spec_kind;
      // Tested only when it changes: a stream names the same kind in every store.
      if (kind !== null && kind !== g.kind) g.kind = SPEC_KIND.test(kind) ? kind : null;
      if (ev.kv_cache_spec_sliding_window !== null)
        g.slidingWindow = ev.kv_cache_spec_sliding_window;
    }
    return inGroup;
  }

  /** sids: the event's shared ids from `at` (the parent's, then its blocks'). */
  private stored(
    src: SourceState,
    ts: number,
    ev: BlockStoredEvent,
    sids: Int32Array,
    at: number,
  ): void {
    const m = this.mediumOf(src, ev.medium);
    const n = ev.block_hashes.length;
    m.c.storedBlocks += n;
    src.c.storedBlocks += n;
    if (m.lastStoreS === null || ts > m.lastStoreS) m.lastStoreS = ts;
    const holdings = this.holdings;
    const parent = ev.parent_block_hash;
    // A store that is no chain (an offload tier's set of blocks) says nothing of their depth.
    let depth: number | null = storeIsChain(ev) ? 0 : null;
    if (parent !== null) {
      src.reuse.storesWithParent += 1;
      const pid = holdings.keptId(sids[at] as number);
      // Reuse: the store extends a prefix this source holds now (in any medium).
      if (pid >= 0 && holdings.heldBy(pid, src.slot)) src.reuse.reuseStores += 1;
      depth = holdings.depthOf(pid);
      const first = n > 0 ? this.keyRef(sids[at + 1] as number, firstParts) : undefined;
      this.hot.add(
        this.keyRef(sids[at] as number, parentParts),
        first,
        depth,
        ev.block_size,
        src.idx,
      );
    }
    // Routing regret: the leading run of new stores that one other source holds. The candidates
    // (sources holding every new store so far) are the first nCandidates of a reused array: no
    // allocation per block.
    const candidates = this.candidates;
    let nCandidates = 0;
    let first = true;
    let run = 0;
    let running = true;
    for (let k = at + 1; k <= at + n; k += 1) {
      if (depth !== null) depth += 1;
      const sid = sids[k] as number;
      let id = holdings.keptId(sid);
      // The holder bit is the union of the source's R: clear, and no R of it is probed.
      const mine = id >= 0 && holdings.heldBy(id, src.slot);
      if (mine && m.resident.has(id)) {
        m.c.announcedHits += 1;
        src.c.announcedHits += 1;
        if (depth !== null) holdings.keepDepth(id, depth);
        continue;
      }
      m.c.newStores += 1;
      src.c.newStores += 1;
      if (id < 0) id = holdings.keep(sid);
      m.resident.add(id, ts);
      if (m.resident.size > m.peak) m.peak = m.resident.size;
      if (holdings.heldByOther(id, src.slot)) src.duplicateStores += 1;
      if (running) {
        let kept = 0;
        if (first) {
          first = false;
          const n = holdings.holdersInto(id, candidates);
          for (let i = 0; i < n; i += 1) {
            const t = candidates[i] as number;
            if (t !== src.slot) candidates[kept++] = t;
          }
        } else {
          for (let i = 0; i < nCandidates; i += 1) {
            const t = candidates[i] as number;
            if (holdings.heldBy(id, t)) candidates[kept++] = t;
          }
        }
        nCandidates = kept;
        if (nCandidates > 0) run += 1;
        else running = false;
      }
      // Not in this R, so the bit says whether another medium of the source holds it.
      if (!mine) holdings.add(id, src.slot);
      if (depth !== null) holdings.keepDepth(id, depth);
      // G last: the id has a holder now, so its leaving G cannot recycle it.
      const ghost = m.ghosts.restore(id);
      if (ghost) this.restored(m, src, ts, ghost);
    }
    src.regretBlocks += run;
    src.regretTokens += run * ev.block_size;
  }

  /** The hash of sid as its decimal's parts (read into parts), or its text when it is none. */
  private keyRef(sid: number, parts: DecimalParts): KeyRef {
    const table = this.ownIds.table;
    return table.keyParts(sid, parts) ? parts : table.keyOf(sid);
  }

  /** A re-store found in G: its distance, thrash (for every window) and the series. */
  private restored(m: MediumState, src: SourceState, ts: number, ghost: GhostHit): void {
    const gap = ts - ghost.removedAt;
    const thrash = gap <= this.thrashWindowS;
    for (let i = 0; i < THRASH_WINDOWS_S.length; i += 1)
      if (gap <= (THRASH_WINDOWS_S[i] as number))
        src.thrashAt[i] = (src.thrashAt[i] as number) + ghost.weight;
    m.distances.add(ghost.distance, ghost.weight);
    this.count(m.c, src.c, ghost.weight, thrash);
    // The analysis' series first: the source's share starts where it does. On the charts' axis,
    // where the source's clock is off the others'.
    const at = this.batchChartTs;
    this.series.add(at, ghost.weight, thrash, gap);
    src.series.add(at, ghost.weight, thrash, gap);
  }

  /** sids: the event's blocks' shared ids from `at`. */
  private removed(
    src: SourceState,
    ts: number,
    ev: BlockRemovedEvent,
    sids: Int32Array,
    at: number,
  ): void {
    const m = this.mediumOf(src, ev.medium);
    const n = ev.block_hashes.length;
    m.c.removedBlocks += n;
    src.c.removedBlocks += n;
    // Looked up once an event, at its first lifetime (a medium gets lifetimes only once it has one).
    let life: LifetimeStats | undefined;
    for (let k = at; k < at + n; k += 1) {
      // A hash without an id, or whose holder bit for the source is clear, is in no R of it.
      const id = this.holdings.keptId(sids[k] as number);
      if (id < 0 || !this.holdings.heldBy(id, src.slot)) continue;
      const storedAt = m.resident.take(id);
      if (storedAt === undefined) continue;
      // A removal before its store (a clock step) has no lifetime: counted, not a sample.
      if (ts < storedAt) {
        this.input.backwardRemovals += 1;
        src.input.backwardRemovals += 1;
      } else (life ??= this.lifetimeOf(m)).add(ts - storedAt);
      // G before the holdings: its reference keeps the id once no source holds the hash.
      m.ghosts.add(id, ts);
      m.firstEvictionS ??= ts;
      if (!this.heldElsewhere(src, m, id)) this.holdings.remove(id, src.slot);
    }
  }

  /** Empties R and G of every medium of a source: no lifetimes, no ghosts. */
  private clearSource(src: SourceState): void {
    for (const m of src.media.values()) {
      m.resident.forEachId((id) => this.holdings.remove(id, src.slot));
      m.resident.clear();
      m.ghosts.clear();
      // No ghost is left to come back: the wait for re-stores starts at the next eviction.
      m.firstEvictionS = null;
    }
  }

  private count(m: Counters, s: Counters, weight: number, thrash: boolean): void {
    m.restores += weight;
    s.restores += weight;
    if (thrash) {
      m.thrashRestores += weight;
      s.thrashRestores += weight;
    }
  }

  /** Whether src holds id in a medium other than m. */
  private heldElsewhere(src: SourceState, m: MediumState, id: number): boolean {
    const list = src.mediaList;
    if (list.length === 1) return false;
    for (let i = 0; i < list.length; i += 1) {
      const other = list[i] as MediumState;
      if (other !== m && other.resident.has(id)) return true;
    }
    return false;
  }

  private sourceOf(name: string): SourceState {
    let s = this.bySource.get(name);
    if (!s) {
      // Indexes are never reused: a removed source's index may still name its past in the hot
      // prefixes. Holder slots are (the lowest free one): the bit sets stay as wide as the most
      // sources there were at once.
      s = newSource(this.nextIdx++, this.holdings.join(), name, this.series);
      this.bySource.set(name, s);
      this.sources.push(s);
    }
    return s;
  }

  private mediumOf(src: SourceState, medium: string | null): MediumState {
    const name = medium ?? UNSPECIFIED_MEDIUM;
    let m = src.media.get(name);
    if (!m) {
      m = newMedium(name, this.holdings, this.opts.ghostExactCap, this.opts.ghostTailCap);
      src.media.set(name, m);
      src.mediaList.push(m);
    }
    return m;
  }

  private lifetimeOf(m: MediumState): LifetimeStats {
    if (m.life === null) {
      let pool = this.lifePools.get(m.medium);
      if (pool === undefined) this.lifePools.set(m.medium, (pool = { n: 0 }));
      m.life = new LifetimeStats(pool);
      this.lifetimeMedia.add(m.medium);
    }
    return m.life;
  }
}

function capacityKey(source: string, medium: string): string {
  return `${source}\u0000${medium}`;
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  let n = 0;
  for (const x of xs) n += f(x);
  return n;
}
