// Everything /metrics needs, for whoever runs sources (the service, or the headless collector):
// the block tally fed by the sources' records, the engine pollers of the profiles that name a
// metrics URL, and the hook through which the cache analysis hands in its figures.

import type { Profile, SourceHealth } from '../../shared/api-types';
import type { SourceConfig } from '../ingest/source-config';
import { BlockTally, type ResidentCount } from './block-tally';
import { figuresForRank, type EngineFigures } from './engine-figures';
import { EngineHistory } from './engine-history';
import { EnginePoller, type EngineReading } from './engine-poller';
import { KvMetricsRegistry } from './kv-registry';
import type {
  AnalysisMetrics,
  MemoryPart,
  MediumTally,
  MetricsSnapshot,
  SourceMetrics,
} from './metrics-snapshot';
import { foldMedia, foldMediaPerSource } from './media-bound';

/** The two text formats a scraper may ask /metrics for. */
export type MetricsFormat = 'prometheus' | 'openmetrics';

/** The /metrics exposition in one format, with its Content-Type. */
export interface MetricsText {
  contentType: string;
  text: string;
}

export interface MetricsHubOptions {
  /** The sources to export: those subscribed now, and disconnected ones with their last state. */
  statuses: () => SourceHealth[];
  /** Export prom-client's process metrics too (CPU, memory, event loop). */
  processMetrics?: boolean;
  /** Engine polling (defaults: every 5 s, 2 s timeout). */
  enginePollMs?: number;
  engineTimeoutMs?: number;
  /** Called after each engine read, good or bad (to refresh a screen, say). */
  onEngineRead?: () => void;
  /** The resident blocks of (source, medium) from an analysis fed the same records (see BlockTally). */
  resident?: ResidentCount;
}

/** The engine's figures beside one source, for the service and its screens. */
export interface EngineSourceReading {
  /** Source id. */
  id: string;
  url: string;
  ok: boolean;
  /** What went wrong at the latest read, said plainly; null when it was good. */
  message: string | null;
  /** Wall clock (ms) of the latest good read. */
  readAt: number | null;
  /** This rank's figures from the latest good read (stale while later reads fail). */
  figures: EngineFigures | null;
}

interface Watched {
  poller: EnginePoller | null;
  /** Source ids of the profile with their configured data-parallel rank. */
  ranks: Map<string, number>;
}

/** The metrics side of a running set of sources. */
export class MetricsHub {
  /** Feed it every record the sources deliver (beside the recording and the model). */
  readonly tally: BlockTally;
  /** Each source's engine counters over time (hit rate over a window, preemptions). */
  readonly history = new EngineHistory();
  private readonly registry: KvMetricsRegistry;
  /** Built on the first scrape that asks for OpenMetrics. */
  private openRegistry: KvMetricsRegistry | null = null;
  private readonly watched = new Map<string, Watched>();
  private analysis: (() => AnalysisMetrics | null) | null = null;
  private memory: (() => Record<string, number>) | null = null;

  constructor(private readonly opts: MetricsHubOptions) {
    this.tally = new BlockTally(opts.resident);
    this.registry = new KvMetricsRegistry({ processMetrics: opts.processMetrics ?? false });
  }

  /** Starts watching a profile's sources (their ranks; its engine's metrics URL if it has one). */
  watch(profile: Profile, configs: SourceConfig[]): void {
    this.unwatch(profile.id);
    const ranks = new Map(configs.map((c, rank) => [c.id, rank]));
    let poller: EnginePoller | null = null;
    if (profile.metricsUrl) {
      poller = new EnginePoller({
        url: profile.metricsUrl,
        ...(this.opts.enginePollMs === undefined ? {} : { intervalMs: this.opts.enginePollMs }),
        ...(this.opts.engineTimeoutMs === undefined
          ? {}
          : { timeoutMs: this.opts.engineTimeoutMs }),
        onRead: (r) => {
          this.remember(ranks, r);
          this.opts.onEngineRead?.();
        },
      });
      poller.start();
    }
    this.watched.set(profile.id, { poller, ranks });
  }

  /** Stops watching a profile (its sources closed): its engine poller stops, its tallies stay. */
  unwatch(profileId: string): void {
    const w = this.watched.get(profileId);
    if (!w) return;
    w.poller?.close();
    this.watched.delete(profileId);
  }

  /** A removed source leaves every figure. */
  forget(sourceId: string): void {
    this.tally.forget(sourceId);
    this.history.forget(sourceId);
  }

  /**
   * The hook for the cache analysis: a function returning its figures at scrape time (null while
   * there are none). Until one is set, the analysis metrics export no series.
   */
  setAnalysis(read: (() => AnalysisMetrics | null) | null): void {
    this.analysis = read;
  }

  /** The hook for the service's memory by part (kvscope_memory_bytes), read at scrape time. */
  setMemory(read: (() => Record<string, number>) | null): void {
    this.memory = read;
  }

  /** Reads every engine metrics URL now (tests, and a "check now" button). */
  async pollEngines(): Promise<void> {
    await Promise.all([...this.watched.values()].map((w) => w.poller?.poll()));
  }

  /** The engine's figures beside each source that has a metrics URL. */
  engineReadings(): EngineSourceReading[] {
    const out: EngineSourceReading[] = [];
    for (const w of this.watched.values()) {
      if (!w.poller) continue;
      const r: EngineReading = w.poller.reading();
      for (const id of w.ranks.keys()) {
        const figures = r.engines === null ? null : figuresForRank(r.engines, this.rankOf(id));
        const missing =
          r.ok && figures === null
            ? `engine metrics ${r.url} has no series labelled engine="${this.rankOf(id)}" for this rank`
            : null;
        out.push({
          id,
          url: r.url,
          ok: r.ok && figures !== null,
          message: r.message ?? missing,
          readAt: r.readAt,
          figures,
        });
      }
    }
    return out;
  }

  /** What a scrape exports now. */
  snapshot(): MetricsSnapshot {
    const statuses = this.opts.statuses();
    const seen = new Set<string>();
    const sources: SourceMetrics[] = statuses.map((s) => {
      const dpRank = this.rankOf(s.id);
      // Two sources with one name, endpoint and rank would be one series: tell them apart.
      const key = (name: string) => JSON.stringify([name, s.endpoint, dpRank]);
      const name = seen.has(key(s.name)) ? `${s.name} (${s.id})` : s.name;
      seen.add(key(name));
      return {
        id: s.id,
        name,
        endpoint: s.endpoint,
        dpRank,
        state: s.state,
        counters: s.counters,
        lastMessageAt: s.lastMessageAt,
        media: foldMedia(this.tally.media(s.id), addTally),
      };
    });
    // A down URL exports up=0 alone: the last good figures are stale, and a Prometheus series
    // that is not known now is absent (the app still shows them, marked stale).
    const engines = this.engineReadings().map((e) => ({
      id: e.id,
      up: e.ok,
      figures: e.ok ? e.figures : null,
    }));
    const analysis = this.analysis?.() ?? null;
    const memory: MemoryPart[] = Object.entries(this.memory?.() ?? {}).map(([part, bytes]) => ({
      part,
      bytes,
    }));
    return {
      at: Date.now(),
      sources,
      engines,
      analysis: analysis && boundedAnalysis(analysis),
      memory,
    };
  }

  /** The text of /metrics now, in Prometheus text or (asked for) OpenMetrics. */
  render(format: MetricsFormat = 'prometheus'): Promise<string> {
    return this.registryFor(format).render(this.snapshot());
  }

  /** The Content-Type of what render(format) returns. */
  contentType(format: MetricsFormat = 'prometheus'): string {
    return this.registryFor(format).contentType;
  }

  /** The text of /metrics in `format` with its Content-Type (what a scrape is answered with). */
  async text(format: MetricsFormat = 'prometheus'): Promise<MetricsText> {
    return { contentType: this.contentType(format), text: await this.render(format) };
  }

  private registryFor(format: MetricsFormat): KvMetricsRegistry {
    if (format === 'prometheus') return this.registry;
    this.openRegistry ??= new KvMetricsRegistry({
      processMetrics: this.opts.processMetrics ?? false,
      openMetrics: true,
    });
    return this.openRegistry;
  }

  /** Stops every engine poller. */
  close(): void {
    for (const id of [...this.watched.keys()]) this.unwatch(id);
  }

  /** Keeps a good read's figures of each of a profile's sources in the history. */
  private remember(ranks: ReadonlyMap<string, number>, r: EngineReading): void {
    if (!r.ok || r.engines === null || r.readAt === null) return;
    for (const id of ranks.keys()) {
      const f = figuresForRank(r.engines, this.rankOf(id));
      if (f) this.history.add(id, r.readAt, f);
    }
  }

  /** The rank label of a source: what its batches carry, else its place in its profile. */
  private rankOf(id: string): number {
    const wire = this.tally.dpRank(id);
    if (wire !== null) return wire;
    for (const w of this.watched.values()) {
      const r = w.ranks.get(id);
      if (r !== undefined) return r;
    }
    return 0;
  }
}

const addTally = (a: MediumTally, b: MediumTally): MediumTally => ({
  medium: a.medium,
  stored: a.stored + b.stored,
  removed: a.removed + b.removed,
  resident: a.resident + b.resident,
});

/** The analysis' figures with its medium labels bounded as the stream's are (media-bound.ts). */
function boundedAnalysis(a: AnalysisMetrics): AnalysisMetrics {
  return {
    ...a,
    media: foldMediaPerSource(a.media, (x, y) => ({
      ...x,
      restores: x.restores + y.restores,
      thrashRestores: x.thrashRestores + y.thrashRestores,
      announcedHits: x.announcedHits + y.announcedHits,
    })),
    lifetimes: foldMedia(a.lifetimes, (x, y) => ({
      medium: x.medium,
      counts: x.counts.map((n, i) => n + (y.counts[i] ?? 0)),
      atBounds: x.atBounds.map((n, i) => n + (y.atBounds[i] ?? 0)),
      sumSec: x.sumSec + y.sumSec,
    })),
  };
}
