// The service: what implements the Bridge, whatever carries it (Electron IPC or a WebSocket).
// It owns the sources, the live recording and model, the view shown (live or an opened file) and
// the frame pump. It knows nothing of windows, dialogs or HTTP: files arrive as paths chosen by a
// dialog in main, or as uploaded bytes in the browser mode.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type {
  ChainFilter,
  EventFilter,
  ExportFormat,
  AppInfo,
  ChainDetail,
  ChainPage,
  ChainQuery,
  EngineReconciliation,
  EventPage,
  EventQuery,
  FileLoad,
  FileResult,
  HashMatch,
  Kpis,
  Profile,
  ProfileInput,
  RecentRecording,
  Series,
  SeriesQuery,
  UpdateFrame,
  ViewSource,
} from '../../shared/api-types';
import type { AnalysisReport } from '../../shared/analysis-report';
import { done, failed } from '../../shared/file-result';
import { APP_VERSION } from '../app-version';
import type { AnalysisGroupOption } from '../analysis/cache-analysis';
import { chainExport } from '../export/chain-export';
import { eventExport } from '../export/event-export';
import { ratesCsv } from '../export/rates-csv';
import { writeExportFile } from '../export/write-export';
import { analysisMetrics, eventSide, useEngineCapacity } from '../metrics/analysis-metrics';
import { MetricsHub } from '../metrics/metrics-hub';
import { reconcile } from '../metrics/reconciliation';
import { openCached } from '../session/cached-open';
import { openCacheDir, openCacheIn, type OpenCache } from '../session/open-cache';
import { messageNames, NO_SPACE, NOT_WRITABLE } from '../session/write-errors';
import {
  budgetFromEnv,
  listRecordingFiles,
  RecordingRetention,
} from '../session/recording-retention';
import { Connections } from './connections';
import { FramePump, type FrameSink, type FrameSubscription } from './frame-pump';
import { LiveSession } from './live-session';
import { ProfileStore } from './profile-store';
import { isStale, sourceStatuses } from './source-status';
import { ViewState } from './view-state';
import { makeDirs } from '../session/make-dirs';

export const WIRE_FORMAT_URL =
  'https://github.com/vllm-project/vllm/blob/main/vllm/distributed/kv_events.py';

/** How many recordings the Recent recordings list shows. */
const RECENT_RECORDINGS = 20;

export interface ServiceOptions {
  /** Where profiles and recordings live; the desktop app passes Electron's userData. */
  dataDir: string;
  /** Endpoints given on the command line: connected at start, not saved as profiles. */
  endpoints?: ProfileInput[];
  /** true: start the demo; 'auto': start it when no endpoint is configured or remembered. */
  demo?: boolean | 'auto';
  /** The demo's first port (--demo-port); 0 or absent: free ports. */
  demoPort?: number;
  /** Pass false to keep profiles in memory only (tests). */
  persistProfiles?: boolean;
  transport: AppInfo['transport'];
  frameIntervalMs?: number;
  /** Bytes all recordings together may take (oldest removed first); default: $KVSCOPE_RECORDINGS_BUDGET or 2 GiB. */
  recordingsBudgetBytes?: number;
  /**
   * Keep what opening a file built, for the same file opened again (open-cache.ts): on unless
   * false. `codeId` names the code where it does not run from a bundle (tests).
   */
  openCache?: false | { codeId?: string; maxBytes?: number };
  /** The one KV cache group the analysis takes (--group; CacheAnalysisOptions.group): live and opened files. */
  group?: number;
}

/** One running KV Scope: sources in, snapshots and queries out. */
export class KvScopeService {
  private readonly rateTicker: NodeJS.Timeout;
  private readonly pump: FramePump;
  private readonly connections: Connections;
  private readonly view: ViewState;
  /** /metrics: the block tally, the engines' own metrics, the analysis hook, the registry. */
  readonly metrics: MetricsHub;
  private readonly retention: RecordingRetention;
  /** An open's state could not be kept, and stderr said so. */
  private saidNotKept = false;

  private constructor(
    private readonly options: ServiceOptions,
    private readonly store: ProfileStore,
    private readonly live: LiveSession,
    private readonly openCache: OpenCache | null,
  ) {
    this.pump = new FramePump((n) => this.buildFrame(n), { intervalMs: options.frameIntervalMs });
    const changed = () => this.pump.markDirty();
    live.onChange(changed);
    // Rates decay while a stream is silent: refresh the frame now and then even without events.
    this.rateTicker = setInterval(changed, 1000);
    this.rateTicker.unref();
    this.metrics = new MetricsHub({
      statuses: () => this.connections.health(),
      processMetrics: true,
      onEngineRead: () => {
        // The engine's real GPU capacity is the what-if analysis' capacity where it is known.
        useEngineCapacity(live.analysis, this.metrics.engineReadings());
        changed();
      },
      // The live analysis gets every record the tally gets (the sink below): its R counts them.
      resident: (source, medium) => live.analysis.residentOf(source, medium),
    });
    this.metrics.setAnalysis(() => analysisMetrics(live.analysis));
    this.metrics.setMemory(() => live.memoryParts());
    const tally = this.metrics.tally;
    this.connections = new Connections({
      store,
      sink: {
        record: (r) => {
          live.sink.record(r);
          tally.record(r);
        },
        clockOffset: (source, seconds) => live.sink.clockOffset?.(source, seconds),
      },
      announce: (source) => live.addSource(source),
      forget: (id) => {
        live.removeSource(id);
        this.metrics.forget(id);
      },
      watch: (profile, configs) => this.metrics.watch(profile, configs),
      unwatch: (profileId) => this.metrics.unwatch(profileId),
      changed,
      demoPort: options.demoPort,
    });
    const problems = store.loadProblem ? [store.loadProblem] : [];
    const budget = recordingsBudget(options.recordingsBudgetBytes, problems);
    this.retention = new RecordingRetention(this.recordingsDir, budget, live.recordingPath);
    this.view = new ViewState(live, problems, changed);
  }

  private get recordingsDir(): string {
    return path.join(this.options.dataDir, 'recordings');
  }

  /** Starts the service: loads profiles, opens the live recording, connects what should be. */
  static async start(options: ServiceOptions): Promise<KvScopeService> {
    await makeDirs(options.dataDir);
    const store = new ProfileStore(
      options.persistProfiles === false ? null : path.join(options.dataDir, 'profiles.json'),
    );
    await store.load();
    const live = await LiveSession.start(
      path.join(options.dataDir, 'recordings'),
      analysisOptionsOf(options),
    );
    const service = new KvScopeService(options, store, live, await startOpenCache(options));
    const connections = service.connections;
    try {
      await service.retention.start();
      for (const [i, input] of (options.endpoints ?? []).entries()) {
        await connections.addTransient({ ...input, id: `cli-${i + 1}` });
      }
      for (const id of store.connectedIds()) {
        if (store.get(id)) await connections.connect(id).catch(() => undefined);
      }
      const nothingConfigured = connections.connectedCount() === 0;
      if (options.demo === true || (options.demo === 'auto' && nothingConfigured)) {
        await connections.setDemo(true);
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

  // Connections

  listProfiles(): Profile[] {
    return this.connections.list();
  }

  saveProfile(input: ProfileInput & { id?: string }): Promise<Profile> {
    return this.connections.save(input);
  }

  deleteProfile(id: string): Promise<void> {
    return this.connections.remove(id);
  }

  connect(profileId: string): Promise<void> {
    return this.connections.connect(profileId);
  }

  disconnect(profileId: string): Promise<void> {
    return this.connections.disconnect(profileId);
  }

  setDemo(on: boolean): Promise<void> {
    return this.connections.setDemo(on);
  }

  // Queries on the view shown

  series(query: SeriesQuery): Series {
    // Live, up to the last complete second of event time now, so a silent stream falls to zero; a
    // file, every second it holds.
    return this.view.model.series(query, this.liveNowTs());
  }

  chains(query: ChainQuery): ChainPage {
    return this.view.model.chains(query);
  }

  chain(id: string): ChainDetail | null {
    return this.view.model.chain(id);
  }

  search(text: string): HashMatch[] {
    return this.view.model.search(text);
  }

  events(query: EventQuery): EventPage {
    return this.view.model.events(query);
  }

  /** The Insights of the view shown: what-if capacity, thrash, lifetimes, the router's view. */
  insights(): AnalysisReport {
    return this.view.analysis.report();
  }

  /** The engine's own metrics beside the live events, per source whose profile names a metrics URL. */
  engineReconciliation(): EngineReconciliation[] {
    return reconcile(this.metrics.engineReadings(), this.metrics.history, (id) =>
      eventSide(this.live.analysis, id),
    );
  }

  kpis(): Kpis {
    if (!this.view.isLive) return this.view.model.kpis(this.viewNowTs());
    const stale = new Set(
      this.connections
        .health()
        .filter(isStale)
        .map((h) => h.id),
    );
    return this.live.model.kpis(this.live.eventTimeNow(), stale);
  }

  /** The rates CSV of the view shown, live sources by the names the user gave them. */
  ratesCsv(): string {
    // The seconds the charts draw (series above).
    return ratesCsv(this.view.model, this.sourceNames(), undefined, this.liveNowTs());
  }

  /**
   * Event time now for the view's rates (Stored / s): live, the clock's; a file, the end of its
   * last second, which is not a whole one (its recording stopped in it), so it is not rated. Its
   * charts and CSV still draw that second: it holds the file's last events and resident level.
   */
  private viewNowTs(): number | undefined {
    if (this.view.isLive) return this.live.eventTimeNow();
    return this.view.model.endTs() ?? undefined;
  }

  /** Where the view's charts and CSV end: live, before the second still filling; a file, at its end. */
  private liveNowTs(): number | undefined {
    return this.view.isLive ? this.live.eventTimeNow() : undefined;
  }

  /** Writes the view's events that match `filter` to `target`, as CSV or JSON. */
  async exportEvents(
    target: string,
    filter: EventFilter,
    format: ExportFormat,
  ): Promise<FileResult> {
    await writeExportFile(target, eventExport(this.view.model, filter, format, this.sourceLabel()));
    return done('exported', path.basename(target));
  }

  /** Writes the view's chains that match `filter`, in its order, to `target`, as CSV or JSON. */
  async exportChains(
    target: string,
    filter: ChainFilter,
    format: ExportFormat,
  ): Promise<FileResult> {
    await writeExportFile(target, chainExport(this.view.model, filter, format, this.sourceLabel()));
    return done('exported', path.basename(target));
  }

  /** A source's name for an export, or its id when it has none. */
  private sourceLabel(): (id: string) => string {
    const names = this.sourceNames();
    return (id) => names.get(id) ?? id;
  }

  /** The view's sources by name: live, the names the user gave them; opened, the file's. */
  private sourceNames(): Map<string, string> {
    return new Map(this.view.sources(this.liveSources()).map((s) => [s.id, s.name]));
  }

  /** The connections as the live view's sources. */
  private liveSources(): ViewSource[] {
    return this.connections.health().map((h) => ({ id: h.id, name: h.name }));
  }

  // Files

  /**
   * Opens a saved session (a path from a dialog, or uploaded bytes) read-only in the views. A path
   * or bytes holding a capture instead (a file dropped on the window) is imported as one.
   */
  async openSession(input: string | Buffer | Readable, name: string): Promise<FileResult> {
    return this.loadFile('open', input, name, input instanceof Readable ? 'session' : 'auto');
  }

  /** Imports a capture of the seed script (or `kvscope capture --json`) into the views. */
  async importCapture(input: string | Buffer | Readable, name: string): Promise<FileResult> {
    return this.loadFile('import', input, name, 'capture');
  }

  /**
   * Opens or imports a file into the views, through the open cache. Its state is kept in the
   * background: the first failure to keep one is said on stderr (once: the cause, a read-only
   * folder say, is the same for the next).
   */
  private async loadFile(
    load: FileLoad,
    input: string | Buffer | Readable,
    name: string,
    kind: 'auto' | 'session' | 'capture',
  ): Promise<FileResult> {
    return this.view.open(load, name, await sizeOf(input), async (onProgress) => {
      const r = await openCached(input, {
        kind,
        captureSource: name,
        onProgress,
        cache: this.openCache,
        analysisOptions: analysisOptionsOf(this.options),
      });
      void r.kept?.then((why) => {
        if (why === null || this.saidNotKept) return;
        this.saidNotKept = true;
        process.stderr.write(
          `kvscope: an open's state was not kept: ${why}; the same file opened again replays it\n`,
        );
      });
      return r;
    });
  }

  /** Stops the file being opened; the view shown stays. True when a load was running. */
  cancelOpen(): boolean {
    return this.view.cancelOpen();
  }

  /** Writes the live recording to `target` atomically. */
  async saveSession(target: string): Promise<FileResult> {
    await this.live.saveAs(target);
    this.pump.markDirty();
    return done('saved', path.basename(target));
  }

  /**
   * Copies the live recording to `target` for the browser mode's download. Refused (done: false)
   * while the recording cannot be written (a full disk): the copy would be cut short.
   */
  async saveSessionCopy(target: string): Promise<FileResult> {
    const refused = (why: string): FileResult => {
      const folder = path.join(this.options.dataDir, 'recordings');
      // The advice fits the cause: freeing disk space does not make a read-only folder writable.
      const remedy = messageNames(NOT_WRITABLE, why)
        ? `make ${folder} writable`
        : messageNames(NO_SPACE, why)
          ? `free disk space for ${folder}`
          : `see to ${folder}`;
      const message = `the recording could not be written (${why}), so a download would be incomplete: ${remedy} and start KV Scope again`;
      return failed('save', message);
    };
    const before = this.live.recordingError;
    if (before) return refused(before);
    await this.live.saveAs(target);
    // A write can fail while the copy is made: then the copy is cut short too.
    const during = this.live.recordingError;
    if (during) return refused(during);
    this.pump.markDirty();
    return done('downloading', path.basename(target));
  }

  backToLive(): void {
    this.view.backToLive();
  }

  /** The recordings in the data folder, newest first (the one being written says so). */
  async listRecordings(): Promise<RecentRecording[]> {
    const files = await listRecordingFiles(this.recordingsDir);
    return files
      .reverse()
      .slice(0, RECENT_RECORDINGS)
      .map((f) => ({
        id: f.name,
        startedAt: f.startedAt.toISOString(),
        bytes: f.bytes,
        current: f.path === this.live.recordingPath,
      }));
  }

  /** Opens a recording of the data folder by its name from listRecordings, as a file would open. */
  async openRecording(id: string): Promise<FileResult> {
    const file = (await listRecordingFiles(this.recordingsDir)).find((f) => f.name === id);
    if (!file) {
      const gone = new Error('it is no longer in the data folder: pick one from the list again');
      return failed('open', gone, id);
    }
    if (file.path === this.live.recordingPath) {
      return failed('open', new Error('it is the live recording, on screen now'), id);
    }
    return this.openSession(file.path, file.name);
  }

  /** True when the live recording holds events not yet saved by the user. */
  hasUnsavedLiveData(): boolean {
    return this.live.unsaved;
  }

  /** Closes every source, the demo and the recording. */
  async close(): Promise<void> {
    clearInterval(this.rateTicker);
    this.pump.close();
    await this.connections.closeAll();
    this.metrics.close();
    await this.retention.stop();
    await this.live.close();
  }

  private buildFrame(n: number): UpdateFrame {
    const model = this.view.model;
    return {
      n,
      epoch: this.view.epoch,
      view: this.view.info(
        { running: this.connections.demoRunning(), live: this.connections.demoLive() },
        this.connections.connectedNames(),
        this.liveSources(),
      ),
      // Live, the charts' now moves on while the stream is silent (as the status strip's ages
      // do): an event's or a chain's "how long ago" read "now" for minutes of silence.
      nowTs: this.view.isLive ? (this.live.eventTimeNow() ?? null) : model.nowTs(),
      kpis: this.kpis(),
      sources: sourceStatuses(
        this.connections.health(),
        this.live.model,
        this.live.eventTimeNow(),
        Date.now(),
      ),
      media: model.media(),
      recording: this.live.recordingStatus(),
    };
  }
}

/** The analysis' options the service's options ask for (live and for every file opened). */
function analysisOptionsOf({ group }: ServiceOptions): AnalysisGroupOption {
  return group === undefined ? {} : { group };
}

/** The open cache of the data folder, named by the code running; null when off or unnamed. */
function startOpenCache({ openCache, dataDir }: ServiceOptions): Promise<OpenCache | null> {
  if (openCache === false) return Promise.resolve(null);
  return openCacheIn(openCacheDir(dataDir), openCache);
}

/** The size of what is opened, for "bytes read of total"; null when unknown (a stream). */
async function sizeOf(input: string | Buffer | Readable): Promise<number | null> {
  if (typeof input === 'string') return (await stat(input).catch(() => null))?.size ?? null;
  return input instanceof Readable ? null : input.byteLength;
}

/** The recordings budget: the option, else $KVSCOPE_RECORDINGS_BUDGET, else 2 GiB. */
function recordingsBudget(option: number | undefined, problems: string[]): number {
  if (option !== undefined) return option;
  const { bytes, problem } = budgetFromEnv();
  if (problem !== null) problems.push(problem);
  return bytes;
}
