// Every metric `/metrics` exports, in one place: the registry defines them from this table, the
// Grafana dashboard's test checks its expressions against it, and deploy/README.md lists it.

/** Labels every per-source metric carries. */
export const SOURCE_LABELS = ['source', 'endpoint', 'dp_rank'] as const;
/** Per-source labels plus the cache tier. */
export const MEDIUM_LABELS = [...SOURCE_LABELS, 'medium'] as const;

export type SourceLabel = (typeof SOURCE_LABELS)[number];
export type MediumLabel = (typeof MEDIUM_LABELS)[number];

export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** One exported metric: its kind, help text and whether it is split by medium. */
export interface MetricSpec {
  kind: MetricKind;
  help: string;
  byMedium: boolean;
}

const counter = (help: string, byMedium = false): MetricSpec => ({
  kind: 'counter',
  help,
  byMedium,
});
const gauge = (help: string, byMedium = false): MetricSpec => ({ kind: 'gauge', help, byMedium });

/** The stream's own figures, per source: from the sources' counters and the block tally. */
export const STREAM_METRICS = {
  kvscope_stored_blocks_total: counter('Blocks named by BlockStored events.', true),
  kvscope_removed_blocks_total: counter('Blocks named by BlockRemoved events.', true),
  kvscope_resident_blocks: gauge('Distinct block hashes resident now.', true),
  kvscope_messages_total: counter('ZeroMQ messages received.'),
  kvscope_events_total: counter('KV cache events decoded.'),
  kvscope_gaps_total: counter('Runs of missing sequence numbers.'),
  kvscope_recovered_batches_total: counter('Missing batches given back by the replay endpoint.'),
  kvscope_lost_batches_total: counter('Missing batches the engine no longer held.'),
  kvscope_duplicate_batches_total: counter('Batches whose seq was already applied (not applied).'),
  kvscope_replay_rejected_total: counter(
    'Replay frames refused (below the request, out of order, unreadable; one past the newest seq ends its answer, counted once).',
  ),
  kvscope_resets_total: counter('Publisher restarts (seq back to 0).'),
  kvscope_undecoded_total: counter('Messages or payloads that could not be decoded.'),
  kvscope_event_errors_total: counter('Single events of a good batch that could not be decoded.'),
  kvscope_source_up: gauge('1 while the source receives messages (state connected), else 0.'),
  kvscope_source_last_message_age_seconds: gauge('Seconds since the source last received one.'),
} as const satisfies Record<string, MetricSpec>;

/** The cache analysis' figures (restores, thrash, hits, lifetimes), once a report is handed in. */
export const ANALYSIS_METRICS = {
  kvscope_new_stores_total: counter(
    'Stores of a hash not resident (misses); hit ratio = hits / (hits + new stores).',
    true,
  ),
  kvscope_restores_total: counter(
    'New stores of a hash removed earlier (on the ghost list).',
    true,
  ),
  kvscope_thrash_restores_total: counter(
    'Re-stores within the thrash window of their removal.',
    true,
  ),
  kvscope_announced_hits_total: counter('Stores of an already resident hash (cache hits).', true),
  kvscope_duplicate_stores_total: counter('New stores of a hash another source holds now.'),
  kvscope_block_lifetime_seconds: {
    kind: 'histogram',
    help: 'Seconds from the new store that made a block resident to its removal, per medium over all sources.',
    byMedium: true,
  },
} as const satisfies Record<string, MetricSpec>;

/** The engine's own /metrics as last read, per source, beside the stream's figures. */
export const ENGINE_METRICS = {
  kvscope_engine_metrics_up: gauge("1 when the engine's metrics URL answered at the last read."),
  kvscope_engine_gpu_blocks: gauge("The engine's num_gpu_blocks (vllm:cache_config_info)."),
  kvscope_engine_block_size_tokens: gauge("The engine's block_size (vllm:cache_config_info)."),
  kvscope_engine_kv_cache_usage_ratio: gauge("The engine's vllm:kv_cache_usage_perc (0..1)."),
  kvscope_engine_prefix_cache_queries_total: counter(
    "The engine's vllm:prefix_cache_queries_total (tokens).",
  ),
  kvscope_engine_prefix_cache_hits_total: counter(
    "The engine's vllm:prefix_cache_hits_total (tokens).",
  ),
  kvscope_engine_preemptions_total: counter("The engine's vllm:num_preemptions_total."),
} as const satisfies Record<string, MetricSpec>;

/** KV Scope's own figures (prom-client's process_* and nodejs_* come beside them). */
export const SELF_METRICS = {
  kvscope_memory_bytes: {
    kind: 'gauge',
    help: "Bytes of KV Scope's own structures by part (typed arrays: hash ids, ghost lists, the forest, the event log...); the JS heap is in nodejs_heap_*.",
    byMedium: false,
  },
} as const satisfies Record<string, MetricSpec>;

export type StreamMetricName = keyof typeof STREAM_METRICS;
export type AnalysisMetricName = keyof typeof ANALYSIS_METRICS;
export type EngineMetricName = keyof typeof ENGINE_METRICS;

/** Upper bounds (seconds) of the lifetime histogram, as DESIGN.md's analysis defines them. */
export const LIFETIME_BOUNDS_S = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600] as const;

/** Every KV Scope metric name (the process_* and nodejs_* metrics of prom-client come on top). */
export const KVSCOPE_METRIC_NAMES: readonly string[] = [
  ...Object.keys(STREAM_METRICS),
  ...Object.keys(ANALYSIS_METRICS),
  ...Object.keys(ENGINE_METRICS),
  ...Object.keys(SELF_METRICS),
];
