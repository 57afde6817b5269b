// Per (source, medium) block counts for /metrics: blocks stored and removed (the sums of
// len(block_hashes), as the screens count them) and blocks resident, by the model's own rules
// (a store of a resident hash does not count twice, AllBlocksCleared and a publisher restart empty
// the source). The model keeps these per source or per medium only; a scrape needs both at once.
// Where a CacheAnalysis sees the same records, its R per (source, medium) is that resident count
// (DESIGN's "new store" / removal rules are the tally's): the tally then asks it and keeps no set
// of its own (a second Set of every resident hash: 5.8 µs a message beside the analysis' 18.7 on
// 64 sim ranks' records replayed, 17 blocks a batch).
//
// Without one (collect --no-analysis) its sets hold hash ids, not hash texts: a u64
// hash comes from the decoder as its decimal's two numbers, and a text made of them per block,
// then hashed by a Set<string>, cost more than the analysis it stands in for.

import { missingCase, type IngestRecord, type IngestSink } from '../../shared/records';
import type { EventRecord } from '../../shared/events';
import { DecimalHashes, type HashList } from '../../shared/hash-list';
import { CountedIds } from '../collections/counted-ids';
import { Residency, UNSPECIFIED_MEDIUM } from '../model/residency';
import type { MediumTally } from './metrics-snapshot';

interface Totals {
  stored: number;
  removed: number;
}

/** Blocks resident in (source, medium) now, from a consumer that keeps them anyway. */
export type ResidentCount = (source: string, medium: string) => number;

/** Counts what each source delivered, one IngestRecord at a time. */
export class BlockTally implements IngestSink {
  /** The tally's own resident sets of hash ids, when no `resident` count is given. */
  private readonly residency: Residency<number> | null;
  /** Hash ids of the tally's own sets, each counting the (source, medium) sets that hold it. */
  private readonly ids = new CountedIds();
  private readonly totals = new Map<string, Map<string, Totals>>();
  /** The dp rank the wire last carried, per source. */
  private readonly wireRank = new Map<string, number>();

  /**
   * `resident`: where the same records reach a CacheAnalysis (applied by the caller, before or
   * after this tally), its resident count; without it the tally keeps its own sets.
   */
  constructor(private readonly resident?: ResidentCount) {
    this.residency = resident === undefined ? new Residency<number>() : null;
  }

  record(r: IngestRecord): void {
    switch (r.k) {
      case 'batch':
        if (r.meta.dpRank !== null) this.wireRank.set(r.meta.source, r.meta.dpRank);
        for (const e of r.events) this.apply(e);
        return;
      case 'reset':
        // A new engine process: its cache starts empty.
        this.clearSource(r.rec.source);
        return;
      case 'gap':
      case 'undecoded':
      case 'event-error':
        // Counted by the source itself (SourceStatus.counters).
        return;
      default:
        missingCase(r);
    }
  }

  /** Stored, removed and resident blocks of one source, per medium in order of appearance. */
  media(source: string): MediumTally[] {
    const out: MediumTally[] = [];
    for (const [medium, t] of this.totals.get(source) ?? []) {
      out.push({
        medium,
        stored: t.stored,
        removed: t.removed,
        resident:
          this.residency === null
            ? (this.resident as ResidentCount)(source, medium)
            : this.residency.ofSourceMedium(source, medium),
      });
    }
    return out;
  }

  /** The data-parallel rank the source's batches carry, null when they carry none. */
  dpRank(source: string): number | null {
    return this.wireRank.get(source) ?? null;
  }

  /** Distinct hashes the tally's own sets hold between them (0 when it keeps none). */
  get ownHashes(): number {
    return this.ids.size;
  }

  /** Drops a source (a removed connection): it leaves every figure. */
  forget(source: string): void {
    this.clearSource(source);
    this.totals.delete(source);
    this.wireRank.delete(source);
  }

  private apply(e: EventRecord): void {
    const ev = e.event;
    switch (ev.type) {
      case 'BlockStored': {
        const medium = ev.medium ?? UNSPECIFIED_MEDIUM;
        this.totalsOf(e.source, medium).stored += ev.block_hashes.length;
        if (this.residency === null) return;
        // The resident set of (source, medium) once per event, not one map walk per block.
        const slot = this.residency.slot(e.source, medium);
        const hashes = ev.block_hashes;
        for (let i = 0; i < hashes.length; i += 1) {
          // A new id is in no set: its add always holds it.
          const id = this.intern(hashes, i);
          if (slot.add(id)) this.ids.add(id, 1);
        }
        return;
      }
      case 'BlockRemoved': {
        const medium = ev.medium ?? UNSPECIFIED_MEDIUM;
        this.totalsOf(e.source, medium).removed += ev.block_hashes.length;
        if (this.residency === null) return;
        const slot = this.residency.slot(e.source, medium);
        const hashes = ev.block_hashes;
        for (let i = 0; i < hashes.length; i += 1) {
          const id = this.find(hashes, i);
          if (id >= 0 && slot.delete(id)) this.ids.add(id, -1);
        }
        return;
      }
      case 'AllBlocksCleared':
        this.clearSource(e.source);
        return;
      default:
        missingCase(ev);
    }
  }

  /** Empties the source's own resident sets (when the tally keeps them). */
  private clearSource(source: string): void {
    if (this.residency === null) return;
    for (const ids of this.residency.clear(source).values())
      for (const id of ids) this.ids.add(id, -1);
  }

  /** The id of hash i of the list, or -1. */
  private find(hashes: HashList, i: number): number {
    return hashes instanceof DecimalHashes
      ? this.ids.findParts(hashes.hi(i), hashes.lo(i))
      : this.ids.find(hashes[i] as string);
  }

  /** The id of hash i of the list, made when new (held by no set yet: the caller adds one). */
  private intern(hashes: HashList, i: number): number {
    const found = this.find(hashes, i);
    if (found >= 0) return found;
    return hashes instanceof DecimalHashes
      ? this.ids.makeParts(hashes.hi(i), hashes.lo(i))
      : this.ids.make(hashes[i] as string);
  }

  private totalsOf(source: string, medium: string): Totals {
    let media = this.totals.get(source);
    if (!media) {
      media = new Map();
      this.totals.set(source, media);
    }
    let t = media.get(medium);
    if (!t) {
      t = { stored: 0, removed: 0 };
      media.set(medium, t);
    }
    return t;
  }
}
