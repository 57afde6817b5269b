// What a vLLM engine's /metrics looks like (prometheus_client's text format 0.0.4, as vLLM V1
// serves it on its API server's port): process metrics first, then the vllm: families, counters
// with their _created gauges, labelled histograms, a data-parallel engine label on every series.
// The figures are parameters so that tests can check that exactly they come out.

/** The figures of one engine (one data-parallel rank) in the sample. */
export interface SampleEngine {
  engine: string;
  numGpuBlocks: number;
  blockSize: number;
  usage: number;
  queries: number;
  hits: number;
  preemptions: number;
}

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

/** A vLLM V1 /metrics answer for these engines. */
export function vllmMetricsText(engines: SampleEngine[]): string {
  const lines: string[] = [
    '# HELP python_gc_objects_collected_total Objects collected during gc',
    '# TYPE python_gc_objects_collected_total counter',
    'python_gc_objects_collected_total{generation="0"} 25716.0',
    'python_gc_objects_collected_total{generation="1"} 5128.0',
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    'process_resident_memory_bytes 2.113466368e+09',
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
  ];
  const each = (f: (e: SampleEngine, l: string) => string) =>
    engines.forEach((e) => lines.push(f(e, `engine="${e.engine}",model_name="${MODEL}"`)));
  each((_e, l) => `vllm:num_requests_running{${l}} 3.0`);
  lines.push(
    '# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.',
    '# TYPE vllm:gpu_cache_usage_perc gauge',
  );
  each((e, l) => `vllm:gpu_cache_usage_perc{${l}} ${e.usage}`);
  lines.push(
    '# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.',
    '# TYPE vllm:kv_cache_usage_perc gauge',
  );
  each((e, l) => `vllm:kv_cache_usage_perc{${l}} ${e.usage}`);
  for (const [name, help, pick] of [
    ['vllm:num_preemptions', 'Cumulative number of preemption from the engine.', 'preemptions'],
    [
      'vllm:prefix_cache_queries',
      'Prefix cache queries, in terms of number of queried tokens.',
      'queries',
    ],
    ['vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', 'hits'],
  ] as const) {
    lines.push(`# HELP ${name}_total ${help}`, `# TYPE ${name}_total counter`);
    each((e, l) => `${name}_total{${l}} ${e[pick].toFixed(1)}`);
    lines.push(`# HELP ${name}_created ${help}`, `# TYPE ${name}_created gauge`);
    each((_e, l) => `${name}_created{${l}} 1.7330532781573393e+09`);
  }
  lines.push(
    '# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.',
    '# TYPE vllm:time_to_first_token_seconds histogram',
  );
  each(
    (_e, l) =>
      `vllm:time_to_first_token_seconds_bucket{${l.replace('model', 'le="0.04",model')}} 11.0`,
  );
  each(
    (_e, l) =>
      `vllm:time_to_first_token_seconds_bucket{${l.replace('model', 'le="+Inf",model')}} 42.0`,
  );
  each((_e, l) => `vllm:time_to_first_token_seconds_count{${l}} 42.0`);
  each((_e, l) => `vllm:time_to_first_token_seconds_sum{${l}} 3.0717813968658447`);
  lines.push(
    '# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig',
    '# TYPE vllm:cache_config_info gauge',
  );
  for (const e of engines) {
    lines.push(
      `vllm:cache_config_info{block_size="${e.blockSize}",cache_dtype="auto",calculate_kv_scales="False",cpu_offload_gb="0",enable_prefix_caching="True",engine="${e.engine}",gpu_memory_utilization="0.9",is_attention_free="False",num_cpu_blocks="None",num_gpu_blocks="${e.numGpuBlocks}",num_gpu_blocks_override="None",prefix_caching_hash_algo="sha256",sliding_window="None",swap_space="4",swap_space_bytes="4294967296"} 1.0`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The same figures as an older vLLM (V0, before data-parallel labels) named them. */
export function oldVllmMetricsText(e: Omit<SampleEngine, 'engine'>): string {
  return [
    '# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig',
    '# TYPE vllm:cache_config_info gauge',
    `vllm:cache_config_info{block_size="${e.blockSize}",cache_dtype="auto",enable_prefix_caching="True",num_cpu_blocks="2048",num_gpu_blocks="${e.numGpuBlocks}",sliding_window="None"} 1.0`,
    '# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.',
    '# TYPE vllm:gpu_cache_usage_perc gauge',
    `vllm:gpu_cache_usage_perc{model_name="${MODEL}"} ${e.usage}`,
    '# HELP vllm:gpu_prefix_cache_queries_total GPU prefix cache queries.',
    '# TYPE vllm:gpu_prefix_cache_queries_total counter',
    `vllm:gpu_prefix_cache_queries_total{model_name="${MODEL}"} ${e.queries}`,
    '# HELP vllm:gpu_prefix_cache_hits_total GPU prefix cache hits.',
    '# TYPE vllm:gpu_prefix_cache_hits_total counter',
    `vllm:gpu_prefix_cache_hits_total{model_name="${MODEL}"} ${e.hits}`,
    '# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.',
    '# TYPE vllm:num_preemptions_total counter',
    `vllm:num_preemptions_total{model_name="${MODEL}"} ${e.preemptions}`,
    '',
  ].join('\n');
}
