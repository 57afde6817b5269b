// The Bridge for browser mode: every method over one WebSocket to `kvscope serve`, except the
// file actions, which use a file picker (upload) and downloads over HTTP.

import { BRIDGE_EVENTS, BRIDGE_METHODS } from '../../shared/contract';
import type { Bridge, PushChannel } from '../../shared/contract';
import { HTTP_ROUTES, WS_PATH, refusalReason } from '../../shared/ws-protocol';
import {
  downloadBytes,
  downloadUrl,
  pickAndUpload,
  stampedName,
  uploadBytes,
} from './browser-files';
import { setLinkLost, setLinkRefused, setLinkState, type LinkState } from './connection-status';
import { WsClient } from './ws-client';
import type { SocketFactory } from './ws-client';

type MethodName = keyof typeof BRIDGE_METHODS;
type EventName = keyof typeof BRIDGE_EVENTS;
type FileMethod =
  | 'openSession'
  | 'importCapture'
  | 'saveSessionAs'
  | 'exportRatesCsv'
  | 'exportChartPng'
  | 'exportEvents'
  | 'exportChains'
  | 'openSessionData';

/** Builds the invoke half of the Bridge from BRIDGE_METHODS over a client. */
export function invokeMethods(client: WsClient): Pick<Bridge, MethodName> {
  const entries = Object.entries(BRIDGE_METHODS).map(([name, channel]) => [
    name,
    (...args: unknown[]) => client.invoke(channel, args),
  ]);
  return Object.fromEntries(entries) as unknown as Pick<Bridge, MethodName>;
}

/** Builds the push half of the Bridge from BRIDGE_EVENTS over a client. */
export function pushMethods(client: WsClient): Pick<Bridge, EventName> {
  const entries = Object.entries(BRIDGE_EVENTS).map(([name, channel]) => [
    name,
    (listener: (payload: unknown) => void) => client.on(channel as PushChannel, listener),
  ]);
  return Object.fromEntries(entries) as unknown as Pick<Bridge, EventName>;
}

/** An export route with the view's filter and the format in its query. */
function exportUrl(route: string, filter: object, format: string): string {
  const q = new URLSearchParams({ filter: JSON.stringify(filter), format });
  return `${route}?${q.toString()}`;
}

const fileMethods: Pick<Bridge, FileMethod> = {
  openSession: () => pickAndUpload(HTTP_ROUTES.openSession, '.gz,.jsonl,.kvscope,application/gzip'),
  importCapture: () => pickAndUpload(HTTP_ROUTES.importCapture, '.jsonl,.json,.txt,.gz'),
  openSessionData: (name, data) => uploadBytes(HTTP_ROUTES.openSession, name, data),
  saveSessionAs: () =>
    downloadUrl(
      HTTP_ROUTES.saveSession,
      stampedName('kvscope-session', 'kvscope.jsonl.gz'),
      'save',
    ),
  exportRatesCsv: () =>
    downloadUrl(HTTP_ROUTES.ratesCsv, stampedName('kvscope-rates', 'csv'), 'export'),
  exportEvents: (filter, format) =>
    downloadUrl(
      exportUrl(HTTP_ROUTES.exportEvents, filter, format),
      stampedName('kvscope-events', format),
      'export',
    ),
  exportChains: (filter, format) =>
    downloadUrl(
      exportUrl(HTTP_ROUTES.exportChains, filter, format),
      stampedName('kvscope-chains', format),
      'export',
    ),
  exportChartPng: async (png) =>
    downloadBytes(png, stampedName('kvscope-chart', 'png'), 'image/png'),
};

/** The WebSocket URL of the serving host. */
export function wsUrl(loc: Location = window.location): string {
  const proto = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${loc.host}${WS_PATH}`;
}

/** Creates the full browser Bridge over one WebSocket. */
export function createWsBridge(
  url: string = wsUrl(),
  factory: SocketFactory = (u) => new WebSocket(u),
): Bridge {
  const onState = (state: LinkState): void => {
    setLinkState(state);
    // A socket refused by a serve that runs (the token of an earlier start): ask the page why.
    if (state === 'down') void pageRefusal().then(setLinkRefused);
  };
  const client = new WsClient(url, factory, onState, setLinkLost);
  return { ...invokeMethods(client), ...pushMethods(client), ...fileMethods };
}

/**
 * Why serve refuses this page, from its answer to the page's own address ({"error": reason}, a
 * WebSocket refused tells the page no reason); null when it serves the page or does not answer.
 */
async function pageRefusal(): Promise<string | null> {
  try {
    const res = await fetch(window.location.pathname, { cache: 'no-store' });
    return res.ok ? null : refusalReason(await res.text());
  } catch {
    return null;
  }
}

let browserMode = false;

/** Installs the WebSocket bridge as window.kvscope when no preload provided one. */
export function installWsBridgeIfAbsent(): void {
  if (window.kvscope) return;
  window.kvscope = createWsBridge();
  browserMode = true;
  dropTokenFromAddress();
}

/**
 * The page of a token URL (serve off loopback) has its cookie by now, which its requests and
 * socket carry: the token leaves the address bar, so a shared screen, a copied link or the
 * history does not hand it on.
 */
function dropTokenFromAddress(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/** True in a browser (`kvscope serve`), false in the desktop window (the preload's bridge). */
export function inBrowserMode(): boolean {
  return browserMode;
}
