// KV Scope's Prometheus registry (prom-client). Every metric is filled at scrape time from one
// MetricsSnapshot, so /metrics shows exactly the figures the service holds at that moment.

import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { RegistryContentType } from 'prom-client';
import {
  ANALYSIS_METRICS,
  ENGINE_METRICS,
  LIFETIME_BOUNDS_S,
  SELF_METRICS,
  MEDIUM_LABELS,
  SOURCE_LABELS,
  STREAM_METRICS,
  type AnalysisMetricName,
  type EngineMetricName,
  type MediumLabel,
  type MetricSpec,
  type StreamMetricName,
} from './metric-names';
import type { MetricsSnapshot, SourceMetrics } from './metrics-snapshot';
import { registerSnapshotHistogram, type HistogramRow } from './snapshot-histogram';
import type { EngineFigures } from './engine-figures';

type Labels = Partial<Record<MediumLabel, string>>;
interface Row {
  labels: Labels;
  value: number;
}
type Rows = (snap: MetricsSnapshot) => Row[];

const sourceLabels = (s: SourceMetrics): Labels => ({
  source: s.name,
  endpoint: s.endpoint,
  dp_rank: String(s.dpRank),
});

const perSource =
  (value: (s: SourceMetrics, at: number) => number | null): Rows =>
  (snap) =>
    snap.sources.flatMap((s) => {
      const v = value(s, snap.at);
      return v === null ? [] : [{ labels: sourceLabels(s), value: v }];
    });

const perMedium =
  (field: 'stored' | 'removed' | 'resident'): Rows =>
  (snap) =>
    snap.sources.flatMap((s) =>
      s.media.map((m) => ({ labels: { ...sourceLabels(s), medium: m.medium }, value: m[field] })),
    );

const STREAM_ROWS: Record<StreamMetricName, Rows> = {
  kvscope_stored_blocks_total: perMedium('stored'),
  kvscope_removed_blocks_total: perMedium('removed'),
  kvscope_resident_blocks: perMedium('resident'),
  kvscope_messages_total: perSource((s) => s.counters.messages),
  kvscope_events_total: perSource((s) => s.counters.events),
  kvscope_gaps_total: perSource((s) => s.counters.gaps),
  kvscope_recovered_batches_total: perSource((s) => s.counters.recovered),
  kvscope_lost_batches_total: perSource((s) => s.counters.lost),
  kvscope_duplicate_batches_total: perSource((s) => s.counters.duplicates),
  kvscope_replay_rejected_total: perSource((s) => s.counters.replayRejected),
  kvscope_resets_total: perSource((s) => s.counters.resets),
  kvscope_undecoded_total: perSource((s) => s.counters.undecoded),
  kvscope_event_errors_total: perSource((s) => s.counters.eventErrors),
  kvscope_source_up: perSource((s) => (s.state === 'connected' ? 1 : 0)),
  kvscope_source_last_message_age_seconds: perSource((s, at) =>
    s.lastMessageAt === null ? null : Math.max(0, at / 1000 - s.lastMessageAt),
  ),
};

/** Rows of the analysis' per (source, medium) counts, labelled by the source they belong to. */
const analysisMedium =
  (field: 'newStores' | 'restores' | 'thrashRestores' | 'announcedHits'): Rows =>
  (snap) => {
    const byId = new Map(snap.sources.map((s) => [s.id, s]));
    return (snap.analysis?.media ?? []).flatMap((m) => {
      const s = byId.get(m.source);
      return s ? [{ labels: { ...sourceLabels(s), medium: m.medium }, value: m[field] }] : [];
    });
  };

const ANALYSIS_ROWS: Record<Exclude<AnalysisMetricName, 'kvscope_block_lifetime_seconds'>, Rows> = {
  kvscope_new_stores_total: analysisMedium('newStores'),
  kvscope_restores_total: analysisMedium('restores'),
  kvscope_thrash_restores_total: analysisMedium('thrashRestores'),
  kvscope_announced_hits_total: analysisMedium('announcedHits'),
  kvscope_duplicate_stores_total: (snap) => {
    const byId = new Map(snap.sources.map((s) => [s.id, s]));
    return (snap.analysis?.duplicateStores ?? []).flatMap((d) => {
      const s = byId.get(d.source);
      return s ? [{ labels: sourceLabels(s), value: d.count }] : [];
    });
  },
};

const engineRow =
  (value: (f: EngineFigures) => number | null): Rows =>
  (snap) => {
    const byId = new Map(snap.sources.map((s) => [s.id, s]));
    return snap.engines.flatMap((e) => {
      const s = byId.get(e.id);
      const v = e.figures === null ? null : value(e.figures);
      return s && v !== null ? [{ labels: sourceLabels(s), value: v }] : [];
    });
  };

const ENGINE_ROWS: Record<EngineMetricName, Rows> = {
  kvscope_engine_metrics_up: (snap) => {
    const byId = new Map(snap.sources.map((s) => [s.id, s]));
    return snap.engines.flatMap((e) => {
      const s = byId.get(e.id);
      return s ? [{ labels: sourceLabels(s), value: e.up ? 1 : 0 }] : [];
    });
  },
  kvscope_engine_gpu_blocks: engineRow((f) => f.numGpuBlocks),
  kvscope_engine_block_size_tokens: engineRow((f) => f.blockSize),
  kvscope_engine_kv_cache_usage_ratio: engineRow((f) => f.kvCacheUsage),
  kvscope_engine_prefix_cache_queries_total: engineRow((f) => f.prefixCacheQueries),
  kvscope_engine_prefix_cache_hits_total: engineRow((f) => f.prefixCacheHits),
  kvscope_engine_preemptions_total: engineRow((f) => f.preemptions),
};

export interface KvRegistryOptions {
  /** Also export prom-client's process_* and nodejs_* metrics (CPU, memory, event loop). */
  processMetrics?: boolean;
  /** Render OpenMetrics 1.0 instead of Prometheus text 0.0.4 (a registry holds one format). */
  openMetrics?: boolean;
}

/** The registry and how to render it from a snapshot. */
export class KvMetricsRegistry {
  readonly registry: Registry<RegistryContentType>;
  private snap: MetricsSnapshot = { at: 0, sources: [], engines: [], analysis: null };

  constructor(opts: KvRegistryOptions = {}) {
    // prom-client renames a counter in place for OpenMetrics (drops `_total` from its family
    // name), so each format needs metrics of its own, not one registry switched between them.
    this.registry = new Registry<RegistryContentType>();
    if (opts.openMetrics) this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const all: [string, MetricSpec, Rows][] = [
      ...entries(STREAM_METRICS, STREAM_ROWS),
      ...entries(ENGINE_METRICS, ENGINE_ROWS),
      ...entries(
        {
          kvscope_new_stores_total: ANALYSIS_METRICS.kvscope_new_stores_total,
          kvscope_restores_total: ANALYSIS_METRICS.kvscope_restores_total,
          kvscope_thrash_restores_total: ANALYSIS_METRICS.kvscope_thrash_restores_total,
          kvscope_announced_hits_total: ANALYSIS_METRICS.kvscope_announced_hits_total,
          kvscope_duplicate_stores_total: ANALYSIS_METRICS.kvscope_duplicate_stores_total,
        },
        ANALYSIS_ROWS,
      ),
    ];
    for (const [name, spec, rows] of all) this.define(name, spec, rows);
    registerSnapshotHistogram(this.registry, {
      name: 'kvscope_block_lifetime_seconds',
      help: ANALYSIS_METRICS.kvscope_block_lifetime_seconds.help,
      bounds: LIFETIME_BOUNDS_S,
      rows: () => this.lifetimeRows(),
    });
    const memory: Gauge<'part'> = new Gauge({
      name: 'kvscope_memory_bytes',
      help: SELF_METRICS.kvscope_memory_bytes.help,
      labelNames: ['part'],
      registers: [this.registry],
      collect: () => {
        memory.reset();
        for (const m of this.snap.memory ?? []) memory.set({ part: m.part }, m.bytes);
      },
    });
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Prometheus text (format 0.0.4), or OpenMetrics, of the figures in `snap`. */
  async render(snap: MetricsSnapshot): Promise<string> {
    // Every metric's collect() runs synchronously inside metrics(), before its first await.
    this.snap = snap;
    return this.registry.metrics();
  }

  /** The Content-Type of what render() returns. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private define(name: string, spec: MetricSpec, rows: Rows): void {
    const labelNames = [...(spec.byMedium ? MEDIUM_LABELS : SOURCE_LABELS)];
    const registers = [this.registry];
    const fill = (set: (labels: Labels, value: number) => void) => {
      for (const row of rows(this.snap)) if (Number.isFinite(row.value)) set(row.labels, row.value);
    };
    if (spec.kind === 'counter') {
      const c: Counter<MediumLabel> = new Counter({
        name,
        help: spec.help,
        labelNames,
        registers,
        collect: () => {
          c.reset();
          // A running total read from elsewhere: set by one increment from zero.
          fill((labels, value) => c.inc(labels, Math.max(0, value)));
        },
      });
    } else {
      const g: Gauge<MediumLabel> = new Gauge({
        name,
        help: spec.help,
        labelNames,
        registers,
        collect: () => {
          g.reset();
          fill((labels, value) => g.set(labels, value));
        },
      });
    }
  }

  private lifetimeRows(): HistogramRow[] {
    // The analysis keeps lifetimes per medium over every source: the series carry medium only.
    return (this.snap.analysis?.lifetimes ?? []).map((h) => ({
      labels: { medium: h.medium },
      counts: h.counts,
      atBounds: h.atBounds,
      sum: h.sumSec,
    }));
  }
}

function entries<K extends string>(
  specs: Record<K, MetricSpec>,
  rows: Record<K, Rows>,
): [string, MetricSpec, Rows][] {
  return (Object.keys(specs) as K[]).map((k) => [k, specs[k], rows[k]]);
}
