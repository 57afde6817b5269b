// The browser mode's transport: serves the built renderer, carries the contract over one WebSocket
// per tab, and stands in for file dialogs with a download and two upload routes.

import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { z } from 'zod';
import type { ExportFormat, FileLoad, FileResult } from '../../shared/api-types';
import { failed } from '../../shared/file-result';
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_TEXT } from '../../shared/limits';
import { missingCase } from '../../shared/records';
import { chainFilterSchema, eventFilterSchema, exportFormatSchema } from '../../shared/schemas';
import { HTTP_ROUTES, WS_PATH, refusalBody, type WsLost } from '../../shared/ws-protocol';
import { METRICS_PATH, sendMetrics } from '../metrics/metrics-http';
import { NO_SPACE } from '../session/write-errors';
import type { ServiceLink } from '../host/service-link';
import type { FileActions } from '../service/invoke-handlers';
import { createDoor } from './door';
import { TransferDir } from './transfer-dir';
import { receiveUpload, type UploadOutcome } from './upload';
import { attachClient, DEFAULT_WS_LIMITS, type WsLinkLimits } from './ws-link';

export interface HttpHostOptions {
  /** The service, running in its own thread (or, in tests, behind a port in this one). */
  service: ServiceLink;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The data folder: uploads and downloads pass through a folder of it, never through memory. */
  dataDir: string;
  maxUploadBytes?: number;
  /** The token off loopback (random when not given; tests give one). */
  token?: string;
  wsLimits?: WsLinkLimits;
  /** How the user picks another port when this one is taken (default: `kvscope serve`'s --port). */
  portAdvice?: string;
}

/** How a user of `kvscope serve` picks another port: the words after "port N is already in use". */
export const SERVE_PORT_ADVICE = 'pass another --port (0 picks a free one)';

export interface HttpHost {
  /** The URL to open, with the token when one is needed. */
  url: string;
  port: number;
  /** Null on loopback. */
  token: string | null;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const WS_MAX_MESSAGE_BYTES = 1 << 20;
/** A refused upload's sender gets this long to read the refusal before its connection is cut. */
const LINGER_MS = 2000;
/** A tab told that the service is gone gets this long to read why before closing cuts it off. */
const LOST_LINGER_MS = 1000;
/** The WebSocket close code of a server that cannot go on (RFC 6455: internal error). */
const CLOSE_INTERNAL_ERROR = 1011;

/** In a browser the file actions run over HTTP routes; over the socket they are refused plainly. */
const browserFileActions: FileActions = {
  openSession: () => refuse(HTTP_ROUTES.openSession),
  saveSessionAs: () => refuse(HTTP_ROUTES.saveSession),
  importCapture: () => refuse(HTTP_ROUTES.importCapture),
  exportRatesCsv: () => refuse(HTTP_ROUTES.ratesCsv),
  exportChartPng: () => Promise.reject(new Error('the browser saves the PNG itself')),
  exportEvents: () => refuse(HTTP_ROUTES.exportEvents),
  exportChains: () => refuse(HTTP_ROUTES.exportChains),
};

function refuse(route: string): Promise<never> {
  return Promise.reject(new Error(`in the browser mode this goes through ${route}`));
}

/** Starts `kvscope serve`'s HTTP + WebSocket server. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { service } = options;
  const rendererDir = path.resolve(options.rendererDir);
  const maxUpload = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  await stat(path.join(rendererDir, 'index.html')).catch(() => {
    throw new Error(`no built renderer in ${rendererDir}: run \`npm run build\` first`);
  });
  const transfers = await TransferDir.open(options.dataDir);
  const door = createDoor(options.host, options.token);
  let port = options.port;

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendRefusal(res, 500, errorText(err));
      else res.destroy();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = door.check(req, port);
    if (verdict.kind !== 'pass') {
      return sendRefusal(res, verdict.status, verdict.message);
    }
    if (verdict.setCookie) res.setHeader('Set-Cookie', verdict.setCookie);
    // The token may sit in this page's URL: it must not travel on as a Referer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const name = (url.searchParams.get('name') ?? 'upload').slice(0, 255);
    if ((req.method === 'POST' && !sameOrigin(req)) || fromAnotherSite(req)) {
      return sendRefusal(res, 403, 'cross-origin request refused');
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.saveSession) {
      return sendSession(res);
    }
    if (req.method === 'GET' && url.pathname === METRICS_PATH) {
      return sendMetrics(req, res, (format) => service.metricsText(format));
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.ratesCsv) {
      const csv = await service.ratesCsv();
      res.writeHead(200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': 'attachment; filename="kvscope-rates.csv"',
      });
      res.end(csv);
      return;
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.exportEvents) {
      return sendExport(res, url, 'events', eventFilterSchema, (file, filter, format) =>
        service.exportEvents(file, filter, format),
      );
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.exportChains) {
      return sendExport(res, url, 'chains', chainFilterSchema, (file, filter, format) =>
        service.exportChains(file, filter, format),
      );
    }
    if (req.method === 'POST' && url.pathname === HTTP_ROUTES.openSession) {
      return upload(req, res, name, 'open', (file) => service.openSession(file, name));
    }
    if (req.method === 'POST' && url.pathname === HTTP_ROUTES.importCapture) {
      return upload(req, res, name, 'import', (file) => service.importCapture(file, name));
    }
    if (req.method === 'GET' || req.method === 'HEAD') return serveStatic(url.pathname, req, res);
    sendRefusal(res, 405, `${req.method} not allowed`);
  }

  /** The live recording as a download: copied to a file first, then streamed from it. */
  async function sendSession(res: ServerResponse): Promise<void> {
    const copy = transfers.file('download');
    let result: FileResult;
    try {
      result = await service.saveSessionCopy(copy);
    } catch (err) {
      await rm(copy, { force: true });
      // Any failure says why (the browser shows the reply), not only a full disk.
      const full = NO_SPACE.has((err as NodeJS.ErrnoException).code ?? '');
      const message = `the session could not be copied for the download (${errorText(err)})${full ? `: free disk space for ${transfers.dir}` : ''}`;
      return sendJson(res, full ? 507 : 500, failed('save', message));
    }
    if (result.status !== 'done') return sendJson(res, 507, result);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    return streamFile(res, copy, 'application/gzip', `kvscope-${stamp}.kvscope.jsonl.gz`);
  }

  /**
   * An export as a download: the filter and format come in the query (checked with the same
   * schemas as the desktop's channel), the file is written to a transfer file first, then streamed.
   */
  async function sendExport<F>(
    res: ServerResponse,
    url: URL,
    what: 'events' | 'chains',
    schema: z.ZodType<F>,
    write: (file: string, filter: F, format: ExportFormat) => Promise<FileResult>,
  ): Promise<void> {
    let filter: F;
    let format: ExportFormat;
    try {
      filter = schema.parse(JSON.parse(url.searchParams.get('filter') ?? '{}'));
      format = exportFormatSchema.parse(url.searchParams.get('format') ?? 'csv');
    } catch (err) {
      const message = `the ${what} export's filter or format is not valid (${errorText(err)}): export again from the ${what} view`;
      return sendJson(res, 400, failed('export', message));
    }
    const copy = transfers.file('download');
    try {
      await write(copy, filter, format);
    } catch (err) {
      await rm(copy, { force: true });
      const full = NO_SPACE.has((err as NodeJS.ErrnoException).code ?? '');
      const message = `the ${what} could not be written for the download (${errorText(err)})${full ? `: free disk space for ${transfers.dir}` : ''}`;
      return sendJson(res, full ? 507 : 500, failed('export', message));
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    return streamFile(
      res,
      copy,
      format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json',
      `kvscope-${what}-${stamp}.${format}`,
    );
  }

  /** Streams a transfer file as an attachment, then removes it. */
  async function streamFile(
    res: ServerResponse,
    file: string,
    type: string,
    downloadName: string,
  ): Promise<void> {
    const size = (await stat(file)).size;
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Disposition': `attachment; filename="${downloadName}"`,
      'Content-Length': size,
    });
    const stream = createReadStream(file);
    stream.on('error', () => res.destroy());
    res.once('close', () => {
      stream.destroy();
      void rm(file, { force: true });
    });
    stream.pipe(res);
  }

  /** Receives an upload into a transfer file, hands that file to `open`, then removes it. */
  async function upload(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    load: FileLoad,
    open: (file: string) => Promise<FileResult>,
  ): Promise<void> {
    const file = transfers.file('upload');
    // The transfer file is gone before the answer: nothing of the upload outlives the request.
    let outcome: UploadOutcome;
    let opened: FileResult | null = null;
    try {
      outcome = await receiveUpload(req, file, maxUpload);
      if (outcome.kind === 'stored') opened = await open(file);
    } finally {
      await rm(file, { force: true });
    }
    switch (outcome.kind) {
      case 'stored':
        return sendJson(res, 200, opened);
      case 'too-large': {
        const limit =
          outcome.limit === MAX_UPLOAD_BYTES
            ? MAX_UPLOAD_BYTES_TEXT
            : `${(outcome.limit / 1024 ** 2).toFixed(0)} MiB`;
        const message = `it is larger than the ${limit} an upload may be; open it with \`kvscope serve --open FILE\` (or --import) on the machine that serves`;
        return refuseUpload(res, 413, failed(load, message, name));
      }
      case 'failed': {
        const full = outcome.code !== null && NO_SPACE.has(outcome.code);
        const message = `the upload could not be stored in ${transfers.dir} (${outcome.message})${full ? ': free disk space there' : ''}`;
        return refuseUpload(res, full ? 507 : 500, failed(load, message, name));
      }
      case 'aborted':
        res.destroy();
        return;
      default:
        return missingCase(outcome);
    }
  }

  /** Answers an upload that was not read to its end, then closes the connection. */
  function refuseUpload(res: ServerResponse, status: number, body: FileResult): void {
    sendJson(res, status, body, { Connection: 'close' });
    // The rest of the body is not wanted: give the sender a moment to read the answer, then cut.
    res.once('finish', () => setTimeout(() => res.socket?.destroy(), LINGER_MS).unref());
  }

  async function serveStatic(
    urlPath: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return sendJson(res, 400, { message: 'malformed path' });
    }
    const relative = path.normalize(decoded).replace(/^([/\\])+/, '');
    let file = path.join(rendererDir, relative || 'index.html');
    if (!file.startsWith(rendererDir + path.sep))
      return sendJson(res, 404, { message: 'not found' });
    const info = await stat(file).catch(() => null);
    if (!info || info.isDirectory()) file = path.join(rendererDir, 'index.html');
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // The file can vanish between stat and read (a rebuild): end this response, not the process.
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  /** A request a page of another site made the browser send (a download it could trigger). */
  function fromAnotherSite(req: IncomingMessage): boolean {
    const site = req.headers['sec-fetch-site'];
    return site === 'cross-site' || site === 'same-site';
  }

  function sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    return origin === undefined || origin === `http://${req.headers.host}`;
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES });
  wss.on('connection', (ws) => {
    if (service.lost !== null) return tellLost(ws, service.lost);
    attachClient(ws, service, browserFileActions, options.wsLimits ?? DEFAULT_WS_LIMITS);
  });
  // A dead service thread is told to every tab, with why and what to do, not only "disconnected".
  service.onLost((reason) => {
    for (const ws of wss.clients) tellLost(ws, reason);
  });
  // The upgrade passes the same door as every request, and only our own page may open a socket.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const verdict = door.check(req, port);
    if (verdict.kind !== 'pass') return refuseUpgrade(socket, verdict.status, verdict.message);
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== WS_PATH) {
      return refuseUpgrade(socket, 404, `the socket is at ${WS_PATH}`);
    }
    if (!sameOrigin(req)) return refuseUpgrade(socket, 403, 'cross-origin socket refused');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(listenError(err, options.host, options.port, options.portAdvice)),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  // Past the start, a failing accept (too many open files) is told, and serving goes on.
  server.on('error', (err) => process.stderr.write(`kvscope serve: ${errorText(err)}\n`));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: door.url(port),
    port,
    token: door.token,
    close: async () => {
      // Tabs being told that the service is gone get a moment to read it; the rest end now.
      await Promise.all([...wss.clients].map((client) => endClient(client)));
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Fails, with listenError's words, when host:port cannot be listened on now (port 0 always can):
 * serve asks before it starts its service, whose recording would otherwise be left behind, an
 * empty file listed under Recent recordings, by a start that never served. The real listen
 * still reports a port taken in between.
 */
export async function probeListen(host: string, port: number, portAdvice?: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err) => reject(listenError(err, host, port, portAdvice)));
    probe.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** Why the server could not listen, in words that say what to do. */
function listenError(
  err: NodeJS.ErrnoException,
  host: string,
  port: number,
  portAdvice = SERVE_PORT_ADVICE,
): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return new Error(`port ${port} on ${host} is already in use: ${portAdvice}`);
    case 'EACCES':
      return new Error(`not allowed to listen on port ${port}: pass a --port above 1023`);
    case 'EADDRNOTAVAIL':
      return new Error(`${host} is not an address of this machine: pass another --host`);
    default:
      return new Error(`cannot listen on ${host}:${port} (${err.message})`);
  }
}

/** Sends a tab why the service is gone, then closes its socket (it reconnects by itself). */
function tellLost(ws: WebSocket, reason: string): void {
  if (ws.readyState !== ws.OPEN) return;
  const message: WsLost = { lost: reason };
  ws.send(JSON.stringify(message));
  ws.close(CLOSE_INTERNAL_ERROR, 'the KV Scope service stopped');
}

/** Ends a client: one closing gracefully may finish for a moment, any other is cut at once. */
async function endClient(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSING) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LOST_LINGER_MS);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  ws.terminate();
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = refusalBody(message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A refusal that is not a file action's (the door, a method, another site): the reason alone, so
 * that a scraper or the page's own download names what it asked for, not an upload.
 */
function sendRefusal(res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(refusalBody(reason));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
