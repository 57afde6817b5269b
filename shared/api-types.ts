// The data shapes that cross between the main side and the renderer: what the channels of
// shared/contract.ts carry. Plain types, no channel names.

import type { EventRecord, HashKey, HashTexts, KvEventType, SchemaFingerprint } from './events';

// ---------- connections ----------

/** What the user edits: one engine endpoint (or a data-parallel group of them). */
export interface ProfileInput {
  name: string;
  /** ZeroMQ endpoint, e.g. tcp://127.0.0.1:5557. */
  endpoint: string;
  /** connect (default: the engine binds) or bind (the publisher connects out, as llm-d's simulator). */
  mode: 'connect' | 'bind';
  /** Topic prefix filter; "" takes every topic. */
  topic: string;
  /** The engine's ROUTER replay endpoint, for recovering gaps. */
  replayEndpoint: string | null;
  /** Data-parallel ranks: rank r publishes on base port + r (replay port likewise). */
  dpRanks: number;
  /**
   * The engine's own Prometheus endpoint (vLLM: http://HOST:8000/metrics), read every few seconds
   * beside the stream; rank r reads the series labelled engine="r". Absent or null: not read.
   */
  metricsUrl?: string | null;
}

export interface Profile extends ProfileInput {
  id: string;
}

export type SourceState = 'connecting' | 'waiting' | 'connected' | 'stalled' | 'error' | 'closed';

export interface SourceCounters {
  messages: number;
  events: number;
  bytes: number;
  gaps: number;
  recovered: number;
  lost: number;
  duplicates: number;
  resets: number;
  undecoded: number;
  eventErrors: number;
  oversized: number;
  /** Replay frames refused: below the request, out of order, past the newest seq, unreadable. */
  replayRejected: number;
}

/** Health of one subscribed endpoint (one per data-parallel rank), as the source itself knows it. */
export interface SourceHealth {
  /** Stable id: the profile id, with `#r` for data-parallel rank r > 0. */
  id: string;
  profileId: string | null;
  name: string;
  endpoint: string;
  state: SourceState;
  counters: SourceCounters;
  lastError: string | null;
  /** What to check when nothing arrives (topic? enable_kv_cache_events? bind vs connect? dp port?). */
  hint: string | null;
  fingerprint: SchemaFingerprint | null;
  lastMessageAt: number | null;
  /**
   * Its subscription: another number once its connection was connected again or edited (a new
   * socket with its settings), so a reconnect the user asked for is not an engine's hang-up.
   */
  subscription?: number;
  /**
   * Whole seconds its engine's clock is behind KV Scope's (negative: ahead), measured at its first
   * batch; its batches are charted with them added. 0 within CLOCK_OFFSET_MIN_S; absent or null
   * before a batch came.
   */
  clockOffsetS?: number | null;
}

/** A source as the screens show it: its health and what the model holds of it. */
export interface SourceStatus extends SourceHealth {
  storedPerSec: number;
  removedPerSec: number;
  residentBlocks: number;
  /** Disconnected, stalled or failed: its numbers are its last known state. */
  stale: boolean;
  /** Seconds since its last message (null before the first). */
  ageSec: number | null;
}

// ---------- what the screens show ----------

export interface Kpis {
  storedBlocks: number;
  removedBlocks: number;
  residentBlocks: number;
  /** Of residentBlocks, those of sources that are disconnected or stalled (their last known state). */
  staleResidentBlocks: number;
  storedPerSec: number;
  removedPerSec: number;
  events: number;
  clears: number;
  gaps: number;
  lost: number;
  recovered: number;
  undecoded: number;
}

export interface Marker {
  /** Event time, seconds. */
  t: number;
  /** clock: a lone batch far from its source's time, charted at that time (chart-clock.ts). */
  kind: 'clear' | 'gap' | 'reset' | 'clock';
  source: string;
  detail: string;
  /**
   * A gap with batches lost: event time of the source's last batch before it. Its rates between
   * then and `t` lack what was lost (shaded on the charts, not read as a quiet engine).
   */
  from?: number;
}

/** How far the service is in reading a file it opens. */
export interface FileProgress {
  name: string;
  /** 0..1 of the file's bytes read. */
  fraction: number;
  /** Bytes read and the file's size, when its size is known. */
  bytesRead: number | null;
  totalBytes: number | null;
}

export interface ViewInfo {
  /** live: the app's own recording; session: a file opened read-only. */
  kind: 'live' | 'session';
  title: string;
  unsaved: boolean;
  demo: boolean;
  /** Loading a file, null when idle. */
  progress: FileProgress | null;
  /** What could not be read from the last opened file, said plainly. */
  problems: string[];
  /**
   * The sources of the view shown, what its filters list and how it names them: live, the
   * connections (the names the user gave them); an opened session, the file's own sources.
   */
  sources: ViewSource[];
  /** An opened session's sources the user removed while it recorded (none live): not in `sources`. */
  removedSources: RemovedSource[];
}

/** A source of the view shown: its id and its name (the id where none is known). */
export interface ViewSource {
  id: string;
  name: string;
}

/** A source a session says was removed, and when (epoch seconds): it left every total there. */
export interface RemovedSource extends ViewSource {
  removedAt: number;
}

/** The live recording: how far its file is behind what was received, and what it could not take. */
export interface RecordingStatus {
  /** Seconds since the oldest record not yet in the file arrived (0 when the file is up to date). */
  lagSeconds: number;
  /** Records received and not yet in the file: what a crash right now would lose. */
  behindRecords: number;
  /** Records the file could not take (its queue was full, or the disk failed): shown, not recorded. */
  droppedRecords: number;
  /** Compressed bytes in the file so far. */
  bytes: number;
  /** lagSeconds is past the second the recording keeps within while the disk keeps up. */
  behind: boolean;
  /** Why the file cannot be written, if it cannot. */
  error: string | null;
}

/** A recording in the app's data folder (the Recent recordings list). */
export interface RecentRecording {
  /** Its file name: what the renderer sends back to open it (never a path). */
  id: string;
  /** ISO 8601 time the recording started. */
  startedAt: string;
  bytes: number;
  /** The recording being written now (the live view). */
  current: boolean;
}

/** A coalesced state snapshot, sent at most ~10 times a second; bounded in bytes. */
export interface UpdateFrame {
  /** Frame counter, for flow control (the renderer acks it). */
  n: number;
  /** Changes when the view switches (open session, back to live): the renderer resets. */
  epoch: number;
  view: ViewInfo;
  /**
   * The charts' now, seconds: live, the latest event time and the wall time since it arrived; a
   * file's, its latest event time.
   */
  nowTs: number | null;
  kpis: Kpis;
  sources: SourceStatus[];
  media: string[];
  /** The live recording, whatever the view shows. */
  recording: RecordingStatus;
}

export interface SeriesQuery {
  /** Seconds back from the latest event (or from toTs); null = the whole session. */
  rangeSec: number | null;
  /** At most this many points per series (default 600). */
  maxPoints?: number;
  /** End of the window in event-time seconds (a zoomed chart); absent: the latest event. */
  toTs?: number;
}

export interface SeriesPoint {
  /** Start of the point's bin, event-time seconds. */
  t: number;
  /** Blocks stored per second over the bin, in total. */
  stored: number;
  removed: number;
  /** Per source, in the order of Series.sources. */
  storedBy: number[];
  removedBy: number[];
  /** Resident blocks at the end of the bin, per medium in the order of Series.media. */
  resident: number[];
  /** Resident blocks at the end of the bin, per source in the order of Series.sources. */
  residentBy: number[];
}

export interface Series {
  /** Seconds covered by each point after downsampling. */
  binSec: number;
  sources: string[];
  /**
   * Per source, the second of its first batch (null: none yet): a point that ends before it has
   * no value of that source, which was not there yet (absent: every point has one).
   */
  since?: (number | null)[];
  media: string[];
  points: SeriesPoint[];
  markers: Marker[];
}

export type ChainSort =
  'depth' | 'lastSeen' | 'firstSeen' | 'restores' | 'resident' | 'evicted' | 'sources';

export interface ChainQuery {
  sort: ChainSort;
  desc: boolean;
  /** A hash (decimal or hex) or a prefix of one, matched against any block of the chain. */
  hash?: string;
  source?: string;
  residentOnly?: boolean;
  /**
   * The Chains view asking (an id of its own): the service keeps the chains of its latest live
   * page, which it answers from while the view holds its list.
   */
  view?: string;
  /**
   * The view holds its list (paused, scrolled down, a row open or under the keyboard): answer
   * from the chains of its latest live page, as they were. Sort and the source and residency
   * filters apply to those rows; another hash filter is answered with the chains now.
   */
  hold?: boolean;
  /** Held: the generation of the rows on the view's screen (ChainPage.generation). */
  generation?: number;
  /** A chain (its id) whose place in this order the page gives (ChainPage.located). */
  locate?: string;
  offset: number;
  limit: number;
}

/** A path from a root to a leaf of the hash forest. */
export interface ChainSummary {
  /** The leaf's hash: one chain per leaf. */
  id: HashKey;
  root: HashKey;
  leaf: HashKey;
  depthBlocks: number;
  depthTokens: number;
  residentBlocks: number;
  evictedBlocks: number;
  /** Stores of blocks of this chain that were already known (re-stores after eviction). */
  restores: number;
  sources: string[];
  firstSeen: number;
  lastSeen: number;
}

export interface ChainPage {
  total: number;
  offset: number;
  rows: ChainSummary[];
  /** Which computation of the chains the rows come from (the forest's version then). */
  generation: number;
  /** A held view's rows were forgotten (unused too long): these are the chains now. */
  renewed?: true;
  /** The index of the query's `locate` chain in this order; absent when it is not among them. */
  located?: number;
}

export interface BlockHistory {
  hash: HashKey;
  parent: HashKey | null;
  resident: boolean;
  timesStored: number;
  timesRemoved: number;
  /** Latest store and removal times (bounded history: of timesStored and timesRemoved). */
  storedAt: number[];
  removedAt: number[];
  /** Seconds the block lived before its last removal; null while it never was removed. */
  lastLifetimeSec: number | null;
  medium: string | null;
  /** Sources holding it now. */
  sources: string[];
  tokens: number;
}

export interface ChainDetail {
  summary: ChainSummary;
  /** Root first. */
  blocks: BlockHistory[];
}

export interface HashMatch {
  hash: HashKey;
  resident: boolean;
  /** Leaves of chains through this block (the first MAX_MATCH_CHAINS). */
  chainIds: HashKey[];
  /** Chains through this block, all of them. */
  chainCount: number;
}

export interface EventQuery {
  types?: KvEventType[];
  source?: string;
  /** Only events of this medium ("unspecified" for events that named none). */
  medium?: string;
  /** A hash or prefix, decimal or hex. */
  hash?: string;
  /** Only events that arrived as this number or before: a frozen or scrolled log's snapshot. */
  upTo?: number;
  /** Only events whose ts is before this event time (seconds): the log at a chart's point. */
  beforeTs?: number;
  /** Newest first; offset counts from the newest. */
  offset: number;
  limit: number;
}

/** An event of the event log, as it reads back from its line: its hashes as texts. */
export interface EventRow extends EventRecord<HashTexts> {
  /** Arrival number within the view, for stable keys. */
  n: number;
  /**
   * Its time on the charts' axis: ts with its source's clock offset (the same as ts for a source
   * on KV Scope's clock), to say how long ago it was against the charts' now.
   */
  chartTs?: number;
}

export interface EventPage {
  /** Matching events still held in memory (the recording has them all). */
  total: number;
  /** Where rows start: the offset asked, or the last page's when that was past the end. */
  offset: number;
  rows: EventRow[];
  /** Arrival number of the newest event held, whatever the filters (-1 when none). */
  newest: number;
  /** Asked up to an arrival number (`upTo`): the matching events held that came after it. */
  newer?: number;
  /**
   * Asked for the events before a time, found none, and older events have left the log: the
   * earliest event time it still holds (every held event is at or past that time), so a reader
   * can tell events gone from the log from none sent. Absent otherwise.
   */
  heldFromTs?: number;
  /**
   * Events the log holds, whatever the filters, when older ones have left it (it keeps the
   * newest in memory; the recording has every one). Absent while it holds every one.
   */
  kept?: number;
}

/** The text formats the events and chains export to. */
export type ExportFormat = 'csv' | 'json';

/** The events view's filter, as an export takes it: every matching event held, newest first. */
export type EventFilter = Omit<EventQuery, 'offset' | 'limit'>;

/** The chains view's filter and order, as an export takes it. */
export type ChainFilter = Omit<ChainQuery, 'offset' | 'limit' | 'locate'>;

/** What a file action did; the renderer builds its notice from these fields, never from a sentence. */
/** How a file comes into the views: opened as a session, or imported as a capture. */
export type FileLoad = 'open' | 'import';

export type FileResult =
  | {
      status: 'done';
      action: 'opened' | 'imported' | 'saved' | 'exported' | 'downloading';
      /** A name to show (never sent back as a path). */
      name: string;
      /** Parts of an opened file that could not be read (its problems list says which). */
      problems: number;
      /** Opened from the state its last open kept (the open cache), not by reading it through. */
      restored?: true;
    }
  /**
   * A dialog closed without a choice (no name), or a load the user stopped (its name, and
   * whether it was an open or an import).
   */
  | { status: 'cancelled'; name?: string; load?: FileLoad }
  | {
      status: 'failed';
      action: 'open' | 'import' | 'save' | 'export';
      name?: string;
      error: string;
    };

export interface AppInfo {
  version: string;
  transport: 'ipc' | 'websocket';
  wireFormatUrl: string;
}

export type ViewName = 'overview' | 'insights' | 'chains' | 'events' | 'connections';

export type MenuCommand =
  | { kind: 'view'; view: ViewName }
  | { kind: 'theme'; theme: 'light' | 'dark' | 'system' }
  | { kind: 'export-png' }
  | { kind: 'shortcuts' }
  | { kind: 'about' };

// ---------- the engine's own metrics beside the stream ----------

/**
 * One source's engine metrics (its profile's metrics URL) beside what its events say. Live only;
 * the engine's figures are its latest good read (stale while later reads fail: see ok, message).
 */
export interface EngineReconciliation {
  source: string;
  /** The metrics URL as shown (without any user:password part). */
  url: string;
  /** The latest read succeeded and carried this source's rank. */
  ok: boolean;
  /** Why not, said so that the user knows what to check; null when ok. */
  message: string | null;
  /** Wall clock (ms) of the latest good read; null before the first. */
  readAt: number | null;
  numGpuBlocks: number | null;
  blockSize: number | null;
  /** vllm:kv_cache_usage_perc, 0..1. */
  usage: number | null;
  /** usage x num_gpu_blocks, rounded: the blocks the engine says its requests hold. */
  engineUsedBlocks: number | null;
  /** Blocks of the GPU tier resident by the events (medium GPU, or none named). */
  eventResidentBlocks: number;
  /**
   * KV cache groups the source's events named (a hybrid model has several): the engine holds a
   * block once per group, the events count its hash once.
   */
  kvCacheGroups: number;
  /** The engine's prefix-cache hit rate (hits / queries, in tokens) since it started. */
  hitRate: number | null;
  /** The same over the last windowSec seconds of reads; null without two reads or queries there. */
  windowHitRate: number | null;
  windowSec: number;
  /** Re-announced (already resident) blocks in the events, and new stores. */
  announcedHits: number;
  newStores: number;
  /** announcedHits / (announcedHits + newStores); null before any store. */
  announcedHitRatio: number | null;
  /** vllm:num_preemptions_total now. */
  preemptions: number | null;
  /** Preemptions at each read since the read before (t: wall clock, seconds), oldest first. */
  preemptionSteps: { t: number; n: number }[];
  /** The GPU capacity the what-if analysis uses: the engine's num_gpu_blocks, or the peak resident. */
  whatIfCapacity: { blocks: number; basis: 'engine' | 'peak-resident' } | null;
}
