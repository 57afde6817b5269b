// Maps every invoke channel of the contract onto the service. One set per connected renderer
// (a window, or a browser tab), since frame acks belong to that renderer's subscription.

import { Buffer } from 'node:buffer';
import type { ChainFilter, EventFilter, ExportFormat, FileResult } from '../../shared/api-types';
import type { InvokeChannel, InvokeHandlers } from '../../shared/contract';
import type { FrameSubscription } from './frame-pump';
import type { KvScopeService } from './service';

/** File actions differ per transport: dialogs on the desktop, downloads and uploads in a browser. */
export interface FileActions {
  openSession(): Promise<FileResult>;
  saveSessionAs(): Promise<FileResult>;
  importCapture(): Promise<FileResult>;
  exportRatesCsv(): Promise<FileResult>;
  exportChartPng(png: Uint8Array): Promise<FileResult>;
  /** The view's events (its filter applied) to a file the user picks. */
  exportEvents(filter: EventFilter, format: ExportFormat): Promise<FileResult>;
  /** The view's chains (its filter and order applied) to a file the user picks. */
  exportChains(filter: ChainFilter, format: ExportFormat): Promise<FileResult>;
}

/** The channels that are file actions: the side that owns dialogs or HTTP routes answers them. */
export const FILE_ACTION_CHANNELS = {
  'session:open': 'openSession',
  'session:save-as': 'saveSessionAs',
  'session:import-capture': 'importCapture',
  'export:rates-csv': 'exportRatesCsv',
  'export:chart-png': 'exportChartPng',
  'export:events': 'exportEvents',
  'export:chains': 'exportChains',
} as const satisfies Partial<Record<InvokeChannel, keyof FileActions>>;

/** The handlers for one renderer; arguments are validated before these run. */
export function createInvokeHandlers(
  service: KvScopeService,
  files: FileActions,
  frames: FrameSubscription,
): InvokeHandlers {
  return {
    'app:info': () => service.info(),
    'frames:ack': (n) => frames.ack(n),
    'profiles:list': () => service.listProfiles(),
    'profiles:save': (profile) => service.saveProfile(profile),
    'profiles:delete': (id) => service.deleteProfile(id),
    'sources:connect': (id) => service.connect(id),
    'sources:disconnect': (id) => service.disconnect(id),
    'demo:set': (on) => service.setDemo(on),
    'model:series': (query) => service.series(query),
    'model:chains': (query) => service.chains(query),
    'model:chain': (id) => service.chain(id),
    'model:search': (text) => service.search(text),
    'model:events': (query) => service.events(query),
    'model:insights': () => service.insights(),
    'engine:reconciliation': () => service.engineReconciliation(),
    'session:open': () => files.openSession(),
    'session:open-data': (name, data) =>
      service.openSession(Buffer.from(data.buffer, data.byteOffset, data.byteLength), name),
    'session:save-as': () => files.saveSessionAs(),
    'session:import-capture': () => files.importCapture(),
    'session:back-to-live': () => service.backToLive(),
    'session:cancel-open': () => service.cancelOpen(),
    'recordings:list': () => service.listRecordings(),
    'recordings:open': (id) => service.openRecording(id),
    'export:rates-csv': () => files.exportRatesCsv(),
    'export:chart-png': (png) => files.exportChartPng(png),
    'export:events': (filter, format) => files.exportEvents(filter, format),
    'export:chains': (filter, format) => files.exportChains(filter, format),
  };
}
