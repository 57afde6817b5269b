// The service: what implements the Bridge, whatever carries it (Electron IPC or a WebSocket).
// It owns the sources, the live recording and model, the view shown (live or an opened file) and
// the frame pump. It knows nothing of windows, dialogs or HTTP: files arrive as paths chosen by a
// dialog in main, or as uploaded bytes in the browser mode.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type {
  AppInfo,
  ChainDetail,
  ChainPage,
  ChainQuery,
  EventPage,
  EventQuery,
  FileResult,
  HashMatch,
  Kpis,
  Profile,
  ProfileInput,
  Series,
  SeriesQuery,
  SourceStatus,
  UpdateFrame,
} from '../../shared/api-types';
import { done, failed } from '../../shared/file-result';
import { APP_VERSION } from '../app-version';
import { expandProfile } from '../ingest/source-config';
import { KvSource } from '../ingest/kv-source';
import type { CacheModel } from '../model/cache-model';
import { ratesCsv } from '../session/rates-csv';
import { loadIntoModel } from '../session/load';
import { SimPublisher } from '../sim/publisher';
import { FramePump, type FrameSink, type FrameSubscription } from './frame-pump';
import { LiveSession } from './live-session';
import { ProfileStore } from './profile-store';

export const WIRE_FORMAT_URL =
  'https://github.com/vllm-project/vllm/blob/main/vllm/distributed/kv_events.py';

const DEMO_PROFILE_ID = 'demo';

export interface ServiceOptions {
  /** Where profiles and recordings live; the desktop app passes Electron's userData. */
  dataDir: string;
  /** Endpoints given on the command line: connected at start, not saved as profiles. */
  endpoints?: ProfileInput[];
  /** true: start the demo; 'auto': start it when no endpoint is configured or remembered. */
  demo?: boolean | 'auto';
  /** Pass false to keep profiles in memory only (tests). */
  persistProfiles?: boolean;
  transport: AppInfo['transport'];
  frameIntervalMs?: number;
}

interface OpenedFile {
  model: CacheModel;
  title: string;
  problems: string[];
}

/** One running KV Scope: sources in, snapshots and queries out. */
export class KvScopeService {
  private readonly sources = new Map<string, KvSource[]>();
  private readonly rateTicker: NodeJS.Timeout;
  private readonly transientProfiles = new Map<string, Profile>();
  private readonly pump: FramePump;
  private demo: SimPublisher | null = null;
  private demoChange: Promise<void> = Promise.resolve();
  private opened: OpenedFile | null = null;
  private progress: number | null = null;
  /** What the live view should say it could not do (a corrupt profiles file, say). */
  private readonly liveProblems: string[] = [];
  private epoch = 1;

  private constructor(
    private readonly options: ServiceOptions,
    private readonly store: ProfileStore,
    private readonly live: LiveSession,
  ) {
    this.pump = new FramePump((n) => this.buildFrame(n), { intervalMs: options.frameIntervalMs });
    live.onChange(() => this.pump.markDirty());
    // Rates decay while a stream is silent: refresh the frame now and then even without events.
    this.rateTicker = setInterval(() => this.pump.markDirty(), 1000);
    this.rateTicker.unref();
    if (store.loadProblem) this.liveProblems.push(store.loadProblem);
  }

  /** Starts the service: loads profiles, opens the live recording, connects what should be. */
  static async start(options: ServiceOptions): Promise<KvScopeService> {
    await mkdir(options.dataDir, { recursive: true });
    const store = new ProfileStore(
      options.persistProfiles === false ? null : path.join(options.dataDir, 'profiles.json'),
    );
    await store.load();
    const live = await LiveSession.start(path.join(options.dataDir, 'recordings'));
    const service = new KvScopeService(options, store, live);
    try {
      for (const [i, input] of (options.endpoints ?? []).entries()) {
        const profile: Profile = { ...input, id: `cli-${i + 1}` };
        service.transientProfiles.set(profile.id, profile);
        await service.connect(profile.id);
      }
      for (const id of store.connectedIds()) {
        if (store.get(id)) await service.connect(id).catch(() => undefined);
      }
      const nothingConfigured = service.sources.size === 0;
      if (options.demo === true || (options.demo === 'auto' && nothingConfigured)) {
        await service.setDemo(true);
      }
    } catch (err) {
      // A bad command-line endpoint fails the start: release what is already open first.
      await service.close();
      throw err;
    }
    return service;
  }

  info(): AppInfo {
    return {
      version: APP_VERSION,
      transport: this.options.transport,
      wireFormatUrl: WIRE_FORMAT_URL,
    };
  }

  /** Frames for one renderer: it must ack each one before it gets the next. */
  subscribe(sink: FrameSink): FrameSubscription {
    return this.pump.subscribe(sink);
  }

  // ---------- connections ----------

  listProfiles(): Profile[] {
    return [...this.transientProfiles.values(), ...this.store.list()];
  }

  /** Adds or edits a connection; a connected one reconnects with its new settings. */
  async saveProfile(input: ProfileInput & { id?: string }): Promise<Profile> {
    let saved: Profile;
    if (input.id && this.transientProfiles.has(input.id)) {
      saved = { ...input, id: input.id };
      this.transientProfiles.set(saved.id, saved);
    } else {
      saved = await this.store.save(input);
    }
    if (this.sources.has(saved.id)) {
      await this.closeSources(saved.id);
      await this.connect(saved.id);
    }
    this.pump.markDirty();
    return saved;
  }

  async deleteProfile(id: string): Promise<void> {
    if (id === DEMO_PROFILE_ID) return this.setDemo(false);
    await this.closeSources(id, { forget: true });
    this.transientProfiles.delete(id);
    await this.store.remove(id);
    this.pump.markDirty();
  }

  async connect(profileId: string): Promise<void> {
    const profile = this.profile(profileId);
    if (this.sources.has(profileId)) return;
    const sources = expandProfile(profile).map((config) => new KvSource(config, this.live.sink));
    this.sources.set(profileId, sources);
    for (const source of sources) {
      const { id, name, endpoint } = source.status();
      this.live.addSource({ id, name, endpoint });
      source.onStatus(() => this.pump.markDirty());
    }
    // A source that cannot start (port in use, bad endpoint) shows its error in its status.
    await Promise.all(sources.map((s) => s.start().catch(() => undefined)));
    // Only saved profiles are remembered as connected (the demo and CLI endpoints are transient).
    if (!this.transientProfiles.has(profileId)) await this.store.setConnected(profileId, true);
    this.pump.markDirty();
  }

  async disconnect(profileId: string): Promise<void> {
    await this.closeSources(profileId);
    if (this.store.get(profileId)) await this.store.setConnected(profileId, false);
    this.pump.markDirty();
  }

  /** The built-in simulator on loopback, connected like any engine. */
  setDemo(on: boolean): Promise<void> {
    // One change at a time: two quick "on" calls would otherwise start two simulators.
    const change = this.demoChange.then(() => this.applyDemo(on));
    this.demoChange = change.catch(() => undefined);
    return change;
  }

  private async applyDemo(on: boolean): Promise<void> {
    if (on && !this.demo) {
      this.demo = await SimPublisher.start({
        format: 'map',
        hash: 'int',
        rate: 25,
        seed: Date.now() % 100_000,
        replay: true,
      });
      const rank = this.demo.ranks[0];
      if (!rank) throw new Error('the demo publisher did not start');
      this.transientProfiles.set(DEMO_PROFILE_ID, {
        id: DEMO_PROFILE_ID,
        name: 'Demo (built-in simulator)',
        endpoint: rank.pubEndpoint,
        mode: 'connect',
        topic: '',
        replayEndpoint: rank.replayEndpoint,
        dpRanks: 1,
      });
      await this.connect(DEMO_PROFILE_ID);
    } else if (!on && this.demo) {
      await this.closeSources(DEMO_PROFILE_ID, { forget: true });
      this.transientProfiles.delete(DEMO_PROFILE_ID);
      await this.demo.close();
      this.demo = null;
    }
    this.pump.markDirty();
  }

  // ---------- queries on the view shown ----------

  private get model(): CacheModel {
    return this.opened?.model ?? this.live.model;
  }

  series(query: SeriesQuery): Series {
    return this.model.series(query);
  }

  chains(query: ChainQuery): ChainPage {
    return this.model.chains(query);
  }

  chain(id: string): ChainDetail | null {
    return this.model.chain(id);
  }

  search(text: string): HashMatch[] {
    return this.model.search(text);
  }

  events(query: EventQuery): EventPage {
    return this.model.events(query);
  }

  kpis(): Kpis {
    return this.opened ? this.opened.model.kpis() : this.live.model.kpis(this.live.eventTimeNow());
  }

  // ---------- files ----------

  /**
   * Opens a saved session (a path from a dialog, or uploaded bytes) read-only in the views. A path
   * or bytes holding a capture instead (a file dropped on the window) is imported as one.
   */
  async openSession(input: string | Buffer | Readable, name: string): Promise<FileResult> {
    const kind = input instanceof Readable ? 'session' : 'auto';
    return this.openFile(name, (onProgress) =>
      loadIntoModel(input, { kind, captureSource: name, onProgress }),
    );
  }

  /** Imports a capture of the seed script (or `kvscope capture --json`) into the views. */
  async importCapture(input: string | Buffer | Readable, name: string): Promise<FileResult> {
    return this.openFile(name, (onProgress) =>
      loadIntoModel(input, { kind: 'capture', captureSource: name, onProgress }),
    );
  }

  /** Writes the live recording to `target` atomically. */
  async saveSession(target: string): Promise<FileResult> {
    await this.live.saveAs(target);
    this.pump.markDirty();
    return done('saved', path.basename(target));
  }

  /** The live recording as bytes of a session file (the browser mode's download). */
  async sessionBytes(): Promise<Buffer> {
    const bytes = await this.live.bytes();
    this.pump.markDirty();
    return bytes;
  }

  ratesCsv(): string {
    return ratesCsv(this.model);
  }

  backToLive(): void {
    if (!this.opened) return;
    this.opened = null;
    this.epoch++;
    this.pump.markDirty();
  }

  /** True when the live recording holds events not yet saved by the user. */
  hasUnsavedLiveData(): boolean {
    return this.live.unsaved;
  }

  // ---------- frames ----------

  private buildFrame(n: number): UpdateFrame {
    const model = this.model;
    const statuses = [...this.sources.values()].flat().map((s) => this.withRates(s.status()));
    return {
      n,
      epoch: this.epoch,
      view: {
        kind: this.opened ? 'session' : 'live',
        title: this.opened?.title ?? (this.demo ? 'Live: demo stream' : 'Live'),
        unsaved: !this.opened && this.live.unsaved,
        demo: !this.opened && this.demo !== null,
        progress: this.progress,
        problems: this.viewProblems(),
      },
      nowTs: model.nowTs(),
      kpis: this.kpis(),
      sources: statuses,
      media: model.media(),
    };
  }

  private viewProblems(): string[] {
    if (this.opened) return this.opened.problems;
    const failed = this.live.recordingError;
    if (!failed) return this.liveProblems;
    return [
      ...this.liveProblems,
      `the recording file cannot be written (${failed}): events from now on are shown but not recorded`,
    ];
  }

  private withRates(status: SourceStatus): SourceStatus {
    const stats = this.live.model.sourceStats(status.id, this.live.eventTimeNow());
    return { ...status, ...stats };
  }

  private async openFile(
    name: string,
    load: (
      onProgress: (fraction: number) => void,
    ) => Promise<{ model: CacheModel; problems: string[] }>,
  ): Promise<FileResult> {
    this.progress = 0;
    this.pump.markDirty();
    try {
      const { model, problems } = await load((fraction) => {
        this.progress = fraction;
        this.pump.markDirty();
      });
      this.opened = { model, title: name, problems };
      this.epoch++;
      return done('opened', name, problems.length);
    } catch (err) {
      // The view stays as it was: the caller shows the message (a dialog, or the page's notice).
      return failed('open', err, name);
    } finally {
      this.progress = null;
      this.pump.markDirty();
    }
  }

  private profile(id: string): Profile {
    const profile = this.transientProfiles.get(id) ?? this.store.get(id);
    if (!profile) throw new Error(`no connection with id ${id}`);
    return profile;
  }

  /** Closes a profile's sources; `forget` (a removed connection) also takes them out of every total. */
  private async closeSources(profileId: string, opts: { forget?: boolean } = {}): Promise<void> {
    const sources = this.sources.get(profileId) ?? [];
    this.sources.delete(profileId);
    await Promise.all(sources.map((s) => s.close()));
    if (opts.forget) for (const s of sources) this.live.model.removeSource(s.status().id);
  }

  /** Closes every source, the demo and the recording. */
  async close(): Promise<void> {
    clearInterval(this.rateTicker);
    this.pump.close();
    for (const id of [...this.sources.keys()]) await this.closeSources(id);
    await this.demoChange;
    await this.demo?.close();
    this.demo = null;
    await this.live.close();
  }
}
