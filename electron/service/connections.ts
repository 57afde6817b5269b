// The connections: saved and transient profiles, the sources they expand into, the built-in demo,
// and the last known health of sources that went away (shown as stale, not dropped).

import type { Profile, ProfileInput } from '../../shared/api-types';
import type { IngestSink } from '../../shared/records';
import type { SourceHealth } from '../../shared/api-types';
import { KvSource, type KvSourceOptions } from '../ingest/kv-source';
import {
  TOPICS_APART,
  expandProfile,
  subscribesTwice,
  type SourceConfig,
} from '../ingest/source-config';
import type { SessionSource } from '../session/format';
import { startOnConsecutivePorts } from '../sim/consecutive-ports';
import type { SimPublisher } from '../sim/publisher';
import type { ProfileStore } from './profile-store';

export const DEMO_PROFILE_ID = 'demo';

/**
 * The demo's workload: two data-parallel ranks behind a router that keeps 90% of turns on their
 * rank, a GPU pool small enough to thrash, and a quarter of requests re-announcing their hits
 * (kv_cache_report_mode="full"), so the Insights have thrash, hits and duplicates to show.
 */
const DEMO_WORKLOAD = {
  dp: 2,
  gpuBlocks: 1536,
  cpuBlocks: 2048,
  reannounce: 0.25,
  stickiness: 0.9,
};

/** What the connections need from the rest of the service. */
export interface ConnectionsDeps {
  store: ProfileStore;
  /** Where every source delivers (the live session). */
  sink: IngestSink;
  /** A source is about to deliver: name it in the recording. */
  announce(source: SessionSource): void;
  /** A removed connection's sources leave every total. */
  forget(sourceId: string): void;
  /** A profile's sources start (metrics: their ranks, and the engine's metrics URL). */
  watch?(profile: Profile, configs: SourceConfig[]): void;
  /** A profile's sources closed. */
  unwatch?(profileId: string): void;
  /** Something a frame shows changed. */
  changed(): void;
  /** The demo's first port (its ranks and replay ports follow); 0 or absent: free ones. */
  demoPort?: number;
}

/** A disconnected source: its last health, its settings and where its stream stood. */
interface Retired {
  health: SourceHealth;
  config: SourceConfig;
  lastSeq: number | null;
  /** That seq's payload, while kept: tells a restart meanwhile at the first gap. */
  lastPayload: Uint8Array | undefined;
  /** Event time of its last batch (null before one). */
  lastTs: number | null;
}

/** The sources KV Scope subscribes to, by profile. */
export class Connections {
  private readonly sources = new Map<string, KvSource[]>();
  /** What each connected profile subscribes to (its ranks' endpoints and topic). */
  private readonly subscribed = new Map<string, SourceConfig[]>();
  private readonly transient = new Map<string, Profile>();
  /**
   * Sources disconnected but not removed: their data stays, shown as stale, with their last health
   * and where their stream stood, for a reconnect to go on from.
   */
  private readonly retired = new Map<string, Retired>();
  private demo: SimPublisher | null = null;
  private demoChange: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ConnectionsDeps) {}

  /** A connection given on the command line: connected now, never saved. */
  async addTransient(profile: Profile): Promise<void> {
    this.transient.set(profile.id, profile);
    await this.connect(profile.id);
  }

  /** Transient profiles first, then the saved ones. */
  list(): Profile[] {
    return [...this.transient.values(), ...this.deps.store.list()];
  }

  /** How many profiles are connected now. */
  connectedCount(): number {
    return this.sources.size;
  }

  /**
   * Adds or edits a connection; a connected one reconnects with its new settings. An edit its
   * connection would refuse (an endpoint another connection subscribes to) is refused before
   * anything changes: the connection stays as it was, saved and connected. So is a new one on
   * such an endpoint (it connects as it is added): nothing is saved.
   */
  async save(input: ProfileInput & { id?: string }): Promise<Profile> {
    if (input.id !== undefined && this.sources.has(input.id)) {
      this.refuseTwice(expandProfile({ ...input, id: input.id }), input.id);
    } else if (input.id === undefined) {
      this.refuseTwice(subscriptionsOf({ ...input, id: 'new' }) ?? []);
    }
    const before =
      input.id !== undefined && this.sources.has(input.id) ? this.profile(input.id) : null;
    let saved: Profile;
    if (input.id && this.transient.has(input.id)) {
      saved = { ...input, id: input.id };
      this.transient.set(saved.id, saved);
    } else {
      saved = await this.deps.store.save(input);
    }
    if (before !== null && onlyRenamed(before, saved)) this.rename(saved);
    else if (this.sources.has(saved.id)) {
      await this.close(saved.id);
      await this.connect(saved.id);
    }
    this.forgetDroppedRanks(saved);
    this.deps.changed();
    return saved;
  }

  /** A connected profile given another name alone: its sources take it, still subscribed. */
  private rename(profile: Profile): void {
    const configs = expandProfile(profile);
    this.subscribed.set(profile.id, configs);
    const sources = this.sources.get(profile.id) ?? [];
    // Its status listener (connect) announces the new name: the recording says it too.
    sources.forEach((s, rank) => s.rename(configs[rank]?.name ?? profile.name));
  }

  /** Removes a connection: its sources close and leave every total. */
  async remove(id: string): Promise<void> {
    if (id === DEMO_PROFILE_ID) return this.setDemo(false);
    await this.close(id, { forget: true });
    this.transient.delete(id);
    await this.deps.store.remove(id);
    this.deps.changed();
  }

  async connect(profileId: string): Promise<void> {
    const profile = this.profile(profileId);
    if (this.sources.has(profileId)) return;
    const configs = expandProfile(profile);
    this.refuseTwice(configs);
    const sources = configs.map(
      (config) => new KvSource(config, this.deps.sink, { resume: this.resume(config) }),
    );
    this.sources.set(profileId, sources);
    this.subscribed.set(profileId, configs);
    this.deps.watch?.(profile, configs);
    for (const source of sources) {
      const { id, name, endpoint } = source.status();
      this.retired.delete(id);
      this.deps.announce({ id, name, endpoint });
      let named = name;
      source.onStatus(() => {
        // A source given no name takes one from its first llm-d topic: the recording says so too.
        const now = source.status().name;
        if (now !== named) {
          named = now;
          this.deps.announce({ id, name: now, endpoint });
        }
        this.deps.changed();
      });
    }
    // A source that cannot start (port in use, bad endpoint) shows its error in its status.
    await Promise.all(sources.map((s) => s.start().catch(() => undefined)));
    // Only saved profiles are remembered as connected (the demo and CLI endpoints are transient).
    if (!this.transient.has(profileId)) await this.deps.store.setConnected(profileId, true);
    this.deps.changed();
  }

  /** Disconnects a profile; what its sources showed stays, as stale. */
  async disconnect(profileId: string): Promise<void> {
    await this.close(profileId);
    if (this.deps.store.get(profileId)) await this.deps.store.setConnected(profileId, false);
    this.deps.changed();
  }

  /** Health of every source: connected ones, then disconnected ones with their last state. */
  health(): SourceHealth[] {
    const retired = [...this.retired.values()].map((r) => r.health);
    return [...[...this.sources.values()].flat().map((s) => s.status()), ...retired];
  }

  /** The names of the connections connected now, the demo left out. */
  connectedNames(): string[] {
    return [...this.sources.keys()]
      .filter((id) => id !== DEMO_PROFILE_ID)
      .map((id) => this.profile(id).name);
  }

  /** True while the built-in simulator runs. */
  demoRunning(): boolean {
    return this.demo !== null;
  }

  /** True while the simulator runs and its connection is connected: the demo stream is live. */
  demoLive(): boolean {
    return this.demo !== null && this.sources.has(DEMO_PROFILE_ID);
  }

  /** The built-in simulator on loopback, connected like any engine. */
  setDemo(on: boolean): Promise<void> {
    // One change at a time: two quick "on" calls would otherwise start two simulators.
    const change = this.demoChange.then(() => this.applyDemo(on));
    this.demoChange = change.catch(() => undefined);
    return change;
  }

  /** Closes every source and the demo. */
  async closeAll(): Promise<void> {
    for (const id of [...this.sources.keys()]) await this.close(id);
    await this.demoChange;
    await this.demo?.close();
    this.demo = null;
  }

  private async applyDemo(on: boolean): Promise<void> {
    if (on && !this.demo) {
      this.demo = await startOnConsecutivePorts(
        {
          format: 'map',
          hash: 'int',
          rate: 25,
          seed: Date.now() % 100_000,
          replay: true,
          ...DEMO_WORKLOAD,
        },
        this.deps.demoPort,
      );
      const rank = this.demo.ranks[0];
      if (!rank) throw new Error('the demo publisher did not start');
      this.transient.set(DEMO_PROFILE_ID, {
        id: DEMO_PROFILE_ID,
        name: 'Demo (built-in simulator)',
        endpoint: rank.pubEndpoint,
        mode: 'connect',
        topic: '',
        replayEndpoint: rank.replayEndpoint,
        dpRanks: DEMO_WORKLOAD.dp,
      });
      await this.connect(DEMO_PROFILE_ID);
    } else if (!on && this.demo) {
      await this.close(DEMO_PROFILE_ID, { forget: true });
      this.transient.delete(DEMO_PROFILE_ID);
      await this.demo.close();
      this.demo = null;
    }
    this.deps.changed();
  }

  /**
   * Where a source reconnecting under a retired id goes on from. The same stream (endpoint, mode
   * and topic unchanged) continues after its last seq: what the engine published meanwhile is a
   * gap, recovered over replay or counted lost, and a restart meanwhile is one. Taken up as a new
   * stream, the old resident blocks stayed and the new ones were added on top (twice the cache).
   * Another stream under the id (the connection was edited) is a new engine: the old state goes,
   * marked as a restart.
   */
  private resume(config: SourceConfig): KvSourceOptions['resume'] {
    const was = this.retired.get(config.id);
    if (was === undefined) return undefined;
    const counters = was.health.counters;
    const c = was.config;
    if (c.endpoint === config.endpoint && c.mode === config.mode && c.topic === config.topic) {
      return { lastSeq: was.lastSeq, lastPayload: was.lastPayload, counters };
    }
    if (was.lastSeq === null) return { lastSeq: null, counters };
    this.deps.sink.record({
      k: 'reset',
      // Dated at the old stream's end: the engine's clock, where the charts have it.
      rec: { source: config.id, previousSeq: was.lastSeq, at: was.lastTs ?? Date.now() / 1000 },
    });
    return { lastSeq: null, counters: { ...counters, resets: counters.resets + 1 } };
  }

  /**
   * Throws when a connected profile already subscribes to one of these endpoints with a topic that
   * overlaps (one a prefix of the other; "" takes every topic): each batch would come twice and
   * every total count it twice. Bind mode needs no check (the port is taken). `editing`: the
   * connection these configs replace, whose own subscriptions are no conflict.
   */
  private refuseTwice(configs: SourceConfig[], editing?: string): void {
    for (const c of configs) {
      for (const [id, theirs] of this.subscribed) {
        if (id === editing) continue;
        const other = theirs.find((o) => subscribesTwice(o, c));
        if (!other) continue;
        const name = id === DEMO_PROFILE_ID ? 'the demo' : `the connection "${other.name}"`;
        throw new Error(
          `${c.endpoint} is already subscribed by ${name}: a second subscription would count every block it publishes twice (disconnect that one first, or give them ${TOPICS_APART})`,
        );
      }
    }
  }

  private profile(id: string): Profile {
    const profile = this.transient.get(id) ?? this.deps.store.get(id);
    if (!profile) throw new Error(`no connection with id ${id}`);
    return profile;
  }

  /**
   * Ranks an edit took away (fewer data-parallel ranks): no connection has them any more, so they
   * leave every total as a removed connection's sources do, instead of staying stale for good.
   */
  private forgetDroppedRanks(profile: Profile): void {
    // Settings its connect will refuse, saying why: no ranks to tell kept from dropped.
    const configs = subscriptionsOf(profile);
    if (configs === null) return;
    const kept = new Set(configs.map((c) => c.id));
    for (const [id, { health }] of this.retired) {
      if (health.profileId !== profile.id || kept.has(id)) continue;
      this.retired.delete(id);
      this.deps.forget(id);
    }
  }

  /** Closes a profile's sources; `forget` (a removed connection) also takes them out of every total. */
  private async close(profileId: string, opts: { forget?: boolean } = {}): Promise<void> {
    const sources = this.sources.get(profileId) ?? [];
    this.sources.delete(profileId);
    this.subscribed.delete(profileId);
    await Promise.all(sources.map((s) => s.close()));
    this.deps.unwatch?.(profileId);
    for (const s of sources) {
      const health = s.status();
      this.retired.set(health.id, {
        health,
        config: s.cfg,
        lastSeq: s.lastSeq(),
        lastPayload: s.lastPayload(),
        lastTs: s.lastBatchTs,
      });
    }
    if (!opts.forget) return;
    // A removed connection takes its disconnected (retired) sources with it too.
    for (const [id, { health }] of this.retired) {
      if (health.profileId !== profileId) continue;
      this.retired.delete(id);
      this.deps.forget(id);
    }
  }
}

/**
 * Whether b is a with another name at most: every other setting (a field added later too) is the
 * subscription's, or its engine metrics', and a change of it subscribes again. Absent reads as null.
 */
function onlyRenamed(a: Profile, b: Profile): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof Profile)[]);
  keys.delete('name');
  return [...keys].every((k) => (a[k] ?? null) === (b[k] ?? null));
}

/**
 * What a profile's connect would subscribe to; null for settings its connect refuses for another
 * reason (a wildcard port with ranks), which save all the same: the connect says why.
 */
function subscriptionsOf(profile: Profile): SourceConfig[] | null {
  try {
    return expandProfile(profile);
  } catch {
    return null;
  }
}
