// The one contract between the main side and the renderer: every channel with its argument and
// result types. The preload, the IPC handlers, the WebSocket host and the renderer's bridge are
// all derived from it. No channel string appears anywhere else. The data shapes live in
// shared/api-types.ts.

import type {
  AppInfo,
  ChainDetail,
  EngineReconciliation,
  ChainPage,
  ChainFilter,
  ChainQuery,
  EventFilter,
  EventPage,
  ExportFormat,
  EventQuery,
  FileResult,
  HashMatch,
  MenuCommand,
  Profile,
  ProfileInput,
  RecentRecording,
  Series,
  SeriesQuery,
  UpdateFrame,
} from './api-types';
import type { AnalysisReport } from './analysis-report';

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
  'model:insights': { args: []; result: AnalysisReport };
  /** The engine's own metrics beside the events, per live source with a metrics URL. */
  'engine:reconciliation': { args: []; result: EngineReconciliation[] };
  'session:open': { args: []; result: FileResult };
  'session:open-data': { args: [name: string, data: Uint8Array]; result: FileResult };
  'session:save-as': { args: []; result: FileResult };
  'session:import-capture': { args: []; result: FileResult };
  'session:back-to-live': { args: []; result: void };
  /** Stops the file being opened (true when one was); the view shown stays. */
  'session:cancel-open': { args: []; result: boolean };
  'recordings:list': { args: []; result: RecentRecording[] };
  'recordings:open': { args: [id: string]; result: FileResult };
  'export:rates-csv': { args: []; result: FileResult };
  'export:chart-png': { args: [png: Uint8Array]; result: FileResult };
  'export:events': { args: [filter: EventFilter, format: ExportFormat]; result: FileResult };
  'export:chains': { args: [filter: ChainFilter, format: ExportFormat]; result: FileResult };
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
  getInsights: 'model:insights',
  getEngineReconciliation: 'engine:reconciliation',
  openSession: 'session:open',
  openSessionData: 'session:open-data',
  saveSessionAs: 'session:save-as',
  importCapture: 'session:import-capture',
  backToLive: 'session:back-to-live',
  cancelOpen: 'session:cancel-open',
  listRecordings: 'recordings:list',
  openRecording: 'recordings:open',
  exportRatesCsv: 'export:rates-csv',
  exportChartPng: 'export:chart-png',
  exportEvents: 'export:events',
  exportChains: 'export:chains',
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
