// The messages between the service host (the thread or process that runs ingest, recording, model
// and analysis) and the side that serves the screen. A renderer's requests travel in the shapes of
// the browser mode's WebSocket (shared/ws-protocol.ts), tagged with the renderer they belong to;
// the transport's own calls (files as paths chosen in main, /metrics) are the HostCalls.

import type {
  ChainFilter,
  EventFilter,
  ExportFormat,
  FileResult,
  Profile,
} from '../../shared/api-types';
import type { InvokeChannel, PushChannel } from '../../shared/contract';
import type { MetricsFormat, MetricsText } from '../metrics/metrics-hub';
import type { ServiceOptions } from '../service/service';

/** What a transport asks of the service besides a renderer's channels. Files come as paths. */
export interface HostCalls {
  openSession(file: string, name: string): Promise<FileResult>;
  importCapture(file: string, name: string): Promise<FileResult>;
  saveSession(target: string): Promise<FileResult>;
  saveSessionCopy(target: string): Promise<FileResult>;
  ratesCsv(): Promise<string>;
  /** The view's events matching the filter, written to `target` (a path chosen in main). */
  exportEvents(target: string, filter: EventFilter, format: ExportFormat): Promise<FileResult>;
  /** The view's chains matching the filter, in its order, written to `target`. */
  exportChains(target: string, filter: ChainFilter, format: ExportFormat): Promise<FileResult>;
  metricsText(format: MetricsFormat): Promise<MetricsText>;
  /** The connections (with the demo's endpoints, so serve can say where the demo publishes). */
  listProfiles(): Promise<Profile[]>;
  /** Stops the service: sources, recording, timers. The host may then end. */
  close(): Promise<void>;
}

export type HostCallName = keyof HostCalls;

/** Main → host. */
export type ToHost =
  | { kind: 'start'; options: ServiceOptions }
  /** A renderer (a window, a browser tab) comes: it gets frames from now on. */
  | { kind: 'attach'; client: number }
  | { kind: 'detach'; client: number }
  /** Whether the renderer's transport can take a frame now (a WebSocket's send buffer). */
  | { kind: 'writable'; client: number; writable: boolean }
  | { kind: 'invoke'; id: number; client: number; channel: InvokeChannel; args: unknown[] }
  | { kind: 'call'; id: number; call: HostCallName; args: unknown[] };

/** Host → main. */
export type FromHost =
  | { kind: 'started' }
  | { kind: 'start-failed'; error: string }
  | { kind: 'reply'; id: number; ok: true; result: unknown }
  | { kind: 'reply'; id: number; ok: false; error: string }
  | { kind: 'push'; client: number; channel: PushChannel; payload: unknown }
  /** The host failed (an exception nothing caught): it closes its sockets and the recording, then ends. */
  | { kind: 'fault'; error: string }
  /** The live session holds events the user has not saved (for the desktop's close guard). */
  | { kind: 'unsaved'; value: boolean };
