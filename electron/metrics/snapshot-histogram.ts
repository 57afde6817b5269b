// A histogram whose buckets are set from counts held elsewhere (the analysis' lifetime
// histogram), not observed one sample at a time: prom-client's Histogram can only observe. The
// registry asks a metric for its name, help, type and `get()`; this object answers exactly that.

import type { Metric, Registry, RegistryContentType } from 'prom-client';

/** One labelled histogram: non-cumulative counts per bucket (the last one open) and the sum. */
export interface HistogramRow {
  labels: Record<string, string>;
  counts: readonly number[];
  /**
   * Per bound, the samples equal to it where counts put them in the bucket above (the analysis'
   * rule): the `le` series, "less than or equal", counts them at that bound.
   */
  atBounds?: readonly number[];
  sum: number;
}

export interface SnapshotHistogramConfig {
  name: string;
  help: string;
  /** Upper bounds, ascending; counts[i] counts samples below bounds[i], the last count the rest. */
  bounds: readonly number[];
  rows: () => HistogramRow[];
}

/** Registers a histogram that reads its rows at scrape time. */
export function registerSnapshotHistogram(
  registry: Registry<RegistryContentType>,
  cfg: SnapshotHistogramConfig,
): void {
  const metric = {
    name: cfg.name,
    help: cfg.help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve(histogramValues(cfg)),
    reset: () => undefined,
  };
  // Structurally what the registry reads of a metric; prom-client types only its own classes.
  registry.registerMetric(metric as unknown as Metric);
}

function histogramValues(cfg: SnapshotHistogramConfig) {
  const values: { labels: Record<string, string | number>; value: number; metricName: string }[] =
    [];
  for (const row of cfg.rows()) {
    let acc = 0;
    cfg.bounds.forEach((bound, i) => {
      acc += row.counts[i] ?? 0;
      values.push({
        labels: { ...row.labels, le: bound },
        value: acc + (row.atBounds?.[i] ?? 0),
        metricName: `${cfg.name}_bucket`,
      });
    });
    const count = acc + (row.counts[cfg.bounds.length] ?? 0);
    values.push({
      labels: { ...row.labels, le: '+Inf' },
      value: count,
      metricName: `${cfg.name}_bucket`,
    });
    values.push({ labels: row.labels, value: row.sum, metricName: `${cfg.name}_sum` });
    values.push({ labels: row.labels, value: count, metricName: `${cfg.name}_count` });
  }
  return { name: cfg.name, help: cfg.help, type: 'histogram', aggregator: 'sum', values };
}
