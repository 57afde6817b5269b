// `kvscope collect`: sources in, /metrics out, nothing else. No model, no frames, no renderer;
// the cache analysis unless told not to; a recording only when asked. One collector per group of engines; Prometheus aggregates the fleet.

import type { Profile } from '../../shared/api-types';
import type { IngestSink } from '../../shared/records';
import { APP_VERSION } from '../app-version';
import { KvSource } from '../ingest/kv-source';
import { TOPICS_APART, expandProfile, subscribesTwice } from '../ingest/source-config';
import { Recording, sayRecordingFailure } from '../session/recording';
import { CacheAnalysis } from '../analysis/cache-analysis';
import { analysisMetrics, useEngineCapacity } from './analysis-metrics';
import { MetricsHub } from './metrics-hub';
import { startMetricsServer, type MetricsServer } from './metrics-http';

export interface CollectorOptions {
  profiles: Profile[];
  /** Where to record every redacted event; null records nothing. */
  recordDir: string | null;
  metricsHost: string;
  /** 0 picks a free port. */
  metricsPort: number;
  /** The token /metrics needs off loopback (default: a new random one). */
  token?: string;
  enginePollMs?: number;
  engineTimeoutMs?: number;
  /** Run the cache analysis too (re-stores, thrash, hits, duplicates, lifetimes); default true. */
  analysis?: boolean;
  /** Analyse this KV cache group alone (a hybrid model's; see CacheAnalysisOptions.group). */
  group?: number;
}

/** A running headless collector. */
export class Collector {
  private constructor(
    readonly hub: MetricsHub,
    readonly sources: KvSource[],
    readonly server: MetricsServer,
    readonly recording: Recording | null,
  ) {}

  /** Subscribes to every profile's sources and serves /metrics; rejects with a clear message. */
  static async start(opts: CollectorOptions): Promise<Collector> {
    const plan = opts.profiles.map((p) => ({ profile: p, configs: expandProfile(p) }));
    // As serve and the app refuse it: an endpoint subscribed twice counts every block twice.
    const all = plan.flatMap((p) => p.configs);
    all.forEach((c, i) => {
      const twice = all.slice(0, i).find((o) => subscribesTwice(o, c));
      if (twice) {
        // Names tell a rank's port (--dp) from an endpoint given as it is.
        const as = twice.name === c.name ? '' : ` (${twice.name}, ${c.name})`;
        throw new Error(
          `${c.endpoint} is given twice${as}: a second subscription would count every block it publishes twice (give it once, or with ${TOPICS_APART})`,
        );
      }
    });
    const sources: KvSource[] = [];
    const analysis =
      opts.analysis === false
        ? null
        : new CacheAnalysis(opts.group === undefined ? {} : { group: opts.group });
    const hub: MetricsHub = new MetricsHub({
      statuses: () => sources.map((s) => s.status()),
      processMetrics: true,
      ...(opts.enginePollMs === undefined ? {} : { enginePollMs: opts.enginePollMs }),
      ...(opts.engineTimeoutMs === undefined ? {} : { engineTimeoutMs: opts.engineTimeoutMs }),
      onEngineRead: () => {
        if (analysis) useEngineCapacity(analysis, hub.engineReadings());
      },
      // The analysis sees every record the tally does: its R is the tally's resident count.
      ...(analysis === null ? {} : { resident: (s, m) => analysis.residentOf(s, m) }),
    });
    if (analysis) {
      hub.setAnalysis(() => analysisMetrics(analysis));
      hub.setMemory(() => analysis.memoryParts());
    }
    const recording =
      opts.recordDir === null
        ? null
        : await Recording.create({
            dir: opts.recordDir,
            app: APP_VERSION,
            // Headless: its operator learns on stderr that events are no longer recorded.
            onWriteError: sayRecordingFailure,
          });
    const tally = hub.tally;
    const sink: IngestSink = {
      record: (r) => {
        recording?.record(r);
        tally.record(r);
        analysis?.apply(r);
      },
    };
    let server: MetricsServer;
    try {
      server = await startMetricsServer({
        hub,
        host: opts.metricsHost,
        port: opts.metricsPort,
        ...(opts.token === undefined ? {} : { token: opts.token }),
      });
    } catch (err) {
      await recording?.close();
      throw err;
    }
    for (const { profile, configs } of plan) {
      for (const cfg of configs) {
        sources.push(new KvSource(cfg, sink));
        recording?.addSource({ id: cfg.id, name: cfg.name, endpoint: cfg.endpoint });
      }
      hub.watch(profile, configs);
    }
    // A source that cannot start (a port in use for --bind) says so in its status and metrics.
    await Promise.all(sources.map((s) => s.start().catch(() => undefined)));
    return new Collector(hub, sources, server, recording);
  }

  /** Closes the sources, the engine pollers, the HTTP server and the recording (flushed). */
  async close(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.close()));
    this.hub.close();
    await this.server.close();
    await this.recording?.close();
  }
}
