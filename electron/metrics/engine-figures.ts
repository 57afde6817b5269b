// The few figures KV Scope reads from a vLLM engine's own /metrics, per engine (vLLM labels each
// data-parallel engine core `engine="r"`). Older vLLM releases used gpu_-prefixed names for the
// cache usage and prefix-cache counters: those are read when the new names are absent.

import { MAX_BLOCK_SIZE } from '../../shared/event-bounds';
import { parsePromText, type PromSample } from './prom-text';

/** What the engine says about its KV cache; null where its /metrics did not carry it. */
export interface EngineFigures {
  /** num_gpu_blocks of vllm:cache_config_info: the GPU cache's capacity in blocks. */
  numGpuBlocks: number | null;
  blockSize: number | null;
  /** vllm:kv_cache_usage_perc, 0..1 (1 = full). */
  kvCacheUsage: number | null;
  /** Prefix-cache queries and hits, in tokens (counters). */
  prefixCacheQueries: number | null;
  prefixCacheHits: number | null;
  preemptions: number | null;
  modelName: string | null;
}

/** The figures of each engine in one answer, by the engine label ("" when there is none). */
export type EngineFiguresByEngine = Map<string, EngineFigures>;

/** The answer parsed but is not what a vLLM engine serves. */
export class NotVllmMetricsError extends Error {}

const NAMES = {
  usage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
  queries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
  hits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
  preemptions: ['vllm:num_preemptions_total'],
  config: ['vllm:cache_config_info'],
} as const;

const empty = (): EngineFigures => ({
  numGpuBlocks: null,
  blockSize: null,
  kvCacheUsage: null,
  prefixCacheQueries: null,
  prefixCacheHits: null,
  preemptions: null,
  modelName: null,
});

/** Reads a vLLM /metrics answer; throws PromTextError or NotVllmMetricsError with the reason. */
export function readEngineFigures(text: string): EngineFiguresByEngine {
  const { samples } = parsePromText(text);
  const byName = new Map<string, PromSample[]>();
  for (const s of samples) {
    if (!s.name.startsWith('vllm:')) continue;
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  if (byName.size === 0) {
    throw new NotVllmMetricsError(
      'the answer has no vllm: metrics: is this the /metrics of a vLLM engine (its HTTP port, 8000 by default)?',
    );
  }
  const out: EngineFiguresByEngine = new Map();
  const of = (s: PromSample): EngineFigures => {
    const engine = s.labels.engine ?? '';
    let f = out.get(engine);
    if (!f) {
      f = empty();
      out.set(engine, f);
    }
    if (f.modelName === null && s.labels.model_name !== undefined)
      f.modelName = s.labels.model_name;
    return f;
  };
  const each = (names: readonly string[], apply: (f: EngineFigures, s: PromSample) => void) => {
    const name = names.find((n) => byName.has(n));
    if (name === undefined) return;
    for (const s of byName.get(name) ?? []) apply(of(s), s);
  };
  each(NAMES.config, (f, s) => {
    f.numGpuBlocks =
      wholeIn(labelNumber(s.labels.num_gpu_blocks), MAX_GPU_BLOCKS) ?? f.numGpuBlocks;
    f.blockSize = wholeIn(labelNumber(s.labels.block_size), MAX_BLOCK_SIZE) ?? f.blockSize;
  });
  // A counter split over several series of one engine (by model, say) adds up; a value no engine
  // can have (a negative count, a usage past 1) is taken as not carried, never shown.
  const add = (prev: number | null, v: number) => (v >= 0 ? (prev ?? 0) + v : prev);
  each(NAMES.usage, (f, s) => (f.kvCacheUsage = s.value >= 0 && s.value <= 1 ? s.value : null));
  each(NAMES.queries, (f, s) => (f.prefixCacheQueries = add(f.prefixCacheQueries, s.value)));
  each(NAMES.hits, (f, s) => (f.prefixCacheHits = add(f.prefixCacheHits, s.value)));
  each(NAMES.preemptions, (f, s) => (f.preemptions = add(f.preemptions, s.value)));
  return out;
}

/**
 * The figures for data-parallel rank `rank`: the engine labelled with it, else the only engine
 * there is (an engine without data parallelism), else none.
 */
export function figuresForRank(all: EngineFiguresByEngine, rank: number): EngineFigures | null {
  const own = all.get(String(rank));
  if (own) return own;
  if (all.size === 1) return all.values().next().value ?? null;
  return null;
}

/**
 * The most GPU blocks an engine is believed to have: 2^31 blocks of 16 tokens are 34 billion
 * tokens of KV cache, past any GPU's memory by orders of magnitude. A larger num_gpu_blocks is no
 * capacity to size the what-if by (a served 1e23 read as one).
 */
export const MAX_GPU_BLOCKS = 2 ** 31;

/** n when it is a whole number in 1..max, else null. */
function wholeIn(n: number | null, max: number): number | null {
  return n !== null && Number.isInteger(n) && n >= 1 && n <= max ? n : null;
}

/** vLLM writes config values as label strings ("27767", or "None" when unset). */
function labelNumber(text: string | undefined): number | null {
  if (text === undefined || text === '' || text === 'None') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}
