// Browser mode: the contract carried over one WebSocket, plus the HTTP routes that stand in for
// file dialogs (save is a download, open is an upload).

import type { InvokeChannel, PushChannel } from './contract';

export const WS_PATH = '/ws';

/** HTTP routes of `kvscope serve` besides the static renderer. */
export const HTTP_ROUTES = {
  /** GET: the current live session as a .kvscope.jsonl.gz download. */
  saveSession: '/api/session/save',
  /** POST (body = file bytes, ?name=): open a saved session. */
  openSession: '/api/session/open',
  /** POST (body = file bytes, ?name=): import a seed-script JSONL capture. */
  importCapture: '/api/capture/import',
  /** GET: the rates of the view as CSV. */
  ratesCsv: '/api/export/rates.csv',
  /** GET (?filter=JSON&format=csv|json): the events of the view, filtered, as a download. */
  exportEvents: '/api/export/events',
  /** GET (?filter=JSON&format=csv|json): the chains of the view, filtered, as a download. */
  exportChains: '/api/export/chains',
} as const;

export interface WsRequest {
  id: number;
  channel: InvokeChannel;
  args: unknown[];
}

export type WsResponse =
  { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface WsPush {
  push: PushChannel;
  payload: unknown;
}

/** The service behind the socket ended: why, and what to do (sent once, before the socket closes). */
export interface WsLost {
  lost: string;
}

export type WsServerMessage = WsResponse | WsPush | WsLost;
