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

/**
 * The JSON body of an HTTP refusal that is no file action's own (the door, another site, a method
 * not allowed): its reason. A file action's refusal is its FileResult.
 */
export interface HttpRefusal {
  error: string;
}

/** The text of an HttpRefusal body with this reason (serve's and collect's refusals alike). */
export function refusalBody(error: string): string {
  const body: HttpRefusal = { error };
  return JSON.stringify(body);
}

/** The reason of an HttpRefusal body, null when text is not one. */
export function refusalReason(text: string): string | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && typeof (v as HttpRefusal).error === 'string')
      return (v as HttpRefusal).error;
  } catch {
    // not JSON: no refusal body
  }
  return null;
}

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
