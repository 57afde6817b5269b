// The one contract between the main side and the renderer. Every channel is declared here with
// its argument and result types; the preload, the IPC handlers, the WebSocket host and the
// renderer's bridge are all derived from it. No channel string appears anywhere else.

import type { EventRecord, HashKey, KvEventType, SchemaFingerprint } from './events';

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
}

/** Health of one subscribed endpoint (one per data-parallel rank). */
export interface SourceStatus {
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
  storedPerSec: number;
  removedPerSec: number;
  residentBlocks: number;
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
  kind: 'clear' | 'gap' | 'reset';
  source: string;
  detail: string;
}

export interface ViewInfo {
  /** live: the app's own recording; session: a file opened read-only. */
  kind: 'live' | 'session';
  title: string;
  unsaved: boolean;
  demo: boolean;
  /** Loading a file: 0..1, null when idle. */
  progress: number | null;
  /** What could not be read from the last opened file, said plainly. */
  problems: string[];
}

/** A coalesced state snapshot, sent at most ~10 times a second; bounded in bytes. */
export interface UpdateFrame {
  /** Frame counter, for flow control (the renderer acks it). */
  n: number;
  /** Changes when the view switches (open session, back to live): the renderer resets. */
  epoch: number;
  view: ViewInfo;
  /** Latest event time seen, seconds. */
  nowTs: number | null;
  kpis: Kpis;
  sources: SourceStatus[];
  media: string[];
}

export interface SeriesQuery {
  /** Seconds back from the latest event; null = the whole session. */
  rangeSec: number | null;
  /** At most this many points per series (default 600). */
  maxPoints?: number;
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
}

export interface Series {
  /** Seconds covered by each point after downsampling. */
  binSec: number;
  sources: string[];
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
}

export interface BlockHistory {
  hash: HashKey;
  parent: HashKey | null;
  resident: boolean;
  timesStored: number;
  /** Latest store and removal times (bounded history). */
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
  /** Leaves of chains through this block (bounded). */
  chainIds: HashKey[];
}

export interface EventQuery {
  types?: KvEventType[];
  source?: string;
  /** A hash or prefix, decimal or hex. */
  hash?: string;
  /** Newest first; offset counts from the newest. */
  offset: number;
  limit: number;
}

export interface EventRow extends EventRecord {
  /** Arrival number within the view, for stable keys. */
  n: number;
}

export interface EventPage {
  /** Matching events still held in memory (the recording has them all). */
  total: number;
  rows: EventRow[];
}

export interface FileResult {
  /** False when the user cancelled a dialog. */
  done: boolean;
  /** A name to show (never sent back as a path). */
  name?: string;
  message?: string;
}

export interface AppInfo {
  version: string;
  transport: 'ipc' | 'websocket';
  wireFormatUrl: string;
}

export type ViewName = 'overview' | 'chains' | 'events' | 'connections';

export type MenuCommand =
  | { kind: 'view'; view: ViewName }
  | { kind: 'theme'; theme: 'light' | 'dark' | 'system' }
  | { kind: 'export-png' }
  | { kind: 'about' };

// ---------- channels ----------

/** Request/response channels: arguments (a tuple) and result. */
export interface InvokeContract {
  'app:info': { args: []; result: AppInfo };
  'frames:ack': { args: [n: number]; result: void };
  'profiles:list': { args: []; result: Profile[] };
  'profiles:save': { args: [profile: ProfileInput & { id?: string }]; result: Profile };
  'profiles:delete': { args: [id: string]; result: void };
  'sources:connect': { args: [profileId: string]; result: void };
  'sources:disconnect': { args: [profileId: string]; result: void };
  'demo:set': { args: [on: boolean]; result: void };
  'model:series': { args: [query: SeriesQuery]; result: Series };
  'model:chains': { args: [query: ChainQuery]; result: ChainPage };
  'model:chain': { args: [id: string]; result: ChainDetail | null };
  'model:search': { args: [text: string]; result: HashMatch[] };
  'model:events': { args: [query: EventQuery]; result: EventPage };
  'session:open': { args: []; result: FileResult };
  'session:open-data': { args: [name: string, data: Uint8Array]; result: FileResult };
  'session:save-as': { args: []; result: FileResult };
  'session:import-capture': { args: []; result: FileResult };
  'session:back-to-live': { args: []; result: void };
  'export:rates-csv': { args: []; result: FileResult };
  'export:chart-png': { args: [png: Uint8Array]; result: FileResult };
}

/** Main → renderer pushes. */
export interface PushContract {
  update: UpdateFrame;
  menu: MenuCommand;
}

export type InvokeChannel = keyof InvokeContract;
export type PushChannel = keyof PushContract;

/** The renderer-facing names of the invoke channels. */
export const BRIDGE_METHODS = {
  getInfo: 'app:info',
  ackFrame: 'frames:ack',
  listProfiles: 'profiles:list',
  saveProfile: 'profiles:save',
  deleteProfile: 'profiles:delete',
  connect: 'sources:connect',
  disconnect: 'sources:disconnect',
  setDemo: 'demo:set',
  getSeries: 'model:series',
  listChains: 'model:chains',
  getChain: 'model:chain',
  searchHash: 'model:search',
  queryEvents: 'model:events',
  openSession: 'session:open',
  openSessionData: 'session:open-data',
  saveSessionAs: 'session:save-as',
  importCapture: 'session:import-capture',
  backToLive: 'session:back-to-live',
  exportRatesCsv: 'export:rates-csv',
  exportChartPng: 'export:chart-png',
} as const satisfies Record<string, InvokeChannel>;

/** The renderer-facing names of the push channels. */
export const BRIDGE_EVENTS = {
  onUpdate: 'update',
  onMenuCommand: 'menu',
} as const satisfies Record<string, PushChannel>;

type Methods = typeof BRIDGE_METHODS;
type Events = typeof BRIDGE_EVENTS;

export type Unsubscribe = () => void;

/** What `window.kvscope` is: derived from the contract, never written by hand. */
export type Bridge = {
  [K in keyof Methods]: (
    ...args: InvokeContract[Methods[K]]['args']
  ) => Promise<InvokeContract[Methods[K]]['result']>;
} & {
  [K in keyof Events]: (listener: (payload: PushContract[Events[K]]) => void) => Unsubscribe;
};

/** Implemented on the main side by each transport (IPC or WebSocket) over the service. */
export type InvokeHandlers = {
  [C in InvokeChannel]: (
    ...args: InvokeContract[C]['args']
  ) => Promise<InvokeContract[C]['result']> | InvokeContract[C]['result'];
};
