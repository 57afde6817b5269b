// The browser mode's transport: serves the built renderer, carries the contract over one WebSocket
// per tab, and stands in for file dialogs with a download and two upload routes.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_EVENTS, type InvokeChannel } from '../../shared/contract';
import { failed } from '../../shared/file-result';
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_TEXT } from '../../shared/limits';
import { ARG_SCHEMAS, parseArgs } from '../../shared/schemas';
import { HTTP_ROUTES, WS_PATH, type WsPush, type WsResponse } from '../../shared/ws-protocol';
import { METRICS_PATH } from '../metrics/metrics-http';
import { createInvokeHandlers, type FileActions } from '../service/invoke-handlers';
import type { KvScopeService } from '../service/service';

export interface HttpHostOptions {
  service: KvScopeService;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export interface HttpHost {
  url: string;
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

/** A WebSocket whose client reads slower than this many bytes is skipped for frames, not queued for. */
const WS_BACKPRESSURE_BYTES = 1 << 20;
const WS_MAX_MESSAGE_BYTES = 1 << 20;

/** In a browser the file actions run over HTTP routes; over the socket they are refused plainly. */
const browserFileActions: FileActions = {
  openSession: () => refuse(HTTP_ROUTES.openSession),
  saveSessionAs: () => refuse(HTTP_ROUTES.saveSession),
  importCapture: () => refuse(HTTP_ROUTES.importCapture),
  exportRatesCsv: () => refuse(HTTP_ROUTES.ratesCsv),
  exportChartPng: () => Promise.reject(new Error('the browser saves the PNG itself')),
};

function refuse(route: string): Promise<never> {
  return Promise.reject(new Error(`in the browser mode this goes through ${route}`));
}

/** Starts `kvscope serve`'s HTTP + WebSocket server. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { service } = options;
  const rendererDir = path.resolve(options.rendererDir);
  await stat(path.join(rendererDir, 'index.html')).catch(() => {
    throw new Error(`no built renderer in ${rendererDir}: run \`npm run build\` first`);
  });

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, failed('upload', errorText(err)));
      else res.destroy();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const name = (url.searchParams.get('name') ?? 'upload').slice(0, 255);
    if ((req.method === 'POST' && !sameOrigin(req)) || fromAnotherSite(req)) {
      return sendJson(res, 403, failed('upload', 'cross-origin request refused'));
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.saveSession) {
      const bytes = await service.sessionBytes();
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      res.writeHead(200, {
        'Content-Type': 'application/gzip',
        'Content-Disposition': `attachment; filename="kvscope-${stamp}.kvscope.jsonl.gz"`,
        'Content-Length': bytes.length,
      });
      res.end(bytes);
      return;
    }
    if (req.method === 'GET' && url.pathname === METRICS_PATH) {
      const text = await service.metrics.render();
      res.writeHead(200, { 'Content-Type': service.metrics.contentType });
      res.end(text);
      return;
    }
    if (req.method === 'GET' && url.pathname === HTTP_ROUTES.ratesCsv) {
      res.writeHead(200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': 'attachment; filename="kvscope-rates.csv"',
      });
      res.end(service.ratesCsv());
      return;
    }
    if (req.method === 'POST' && url.pathname === HTTP_ROUTES.openSession) {
      return sendJson(res, 200, await service.openSession(await readBody(req), name));
    }
    if (req.method === 'POST' && url.pathname === HTTP_ROUTES.importCapture) {
      return sendJson(res, 200, await service.importCapture(await readBody(req), name));
    }
    if (req.method === 'GET' || req.method === 'HEAD') return serveStatic(url.pathname, req, res);
    sendJson(res, 405, failed('upload', `${req.method} not allowed`));
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

  const wss = new WebSocketServer({
    server,
    path: WS_PATH,
    maxPayload: WS_MAX_MESSAGE_BYTES,
    // Any page in the user's browser can open a socket to localhost: only our own page may.
    verifyClient: ({ req }: { req: IncomingMessage }) => sameOrigin(req),
  });
  wss.on('connection', (ws) => attachClient(ws, service));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function attachClient(ws: WebSocket, service: KvScopeService): void {
  const push = (message: WsPush) => ws.send(JSON.stringify(message));
  const frames = service.subscribe({
    send: (frame) => push({ push: BRIDGE_EVENTS.onUpdate, payload: frame }),
    writable: () => ws.readyState === ws.OPEN && ws.bufferedAmount < WS_BACKPRESSURE_BYTES,
  });
  const handlers = createInvokeHandlers(service, browserFileActions, frames);
  ws.on('close', () => frames.close());
  // ws closes the socket itself on a protocol error (1009 for an oversized message); an 'error'
  // event nobody listens to would crash the whole serve process instead.
  ws.on('error', () => undefined);
  ws.on('message', (data) => {
    void answer(String(data)).then((reply) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
    });
  });

  async function answer(text: string): Promise<WsResponse> {
    let id = -1;
    try {
      const request = JSON.parse(text) as { id?: unknown; channel?: unknown; args?: unknown };
      if (typeof request.id !== 'number') throw new Error('a request needs a numeric id');
      id = request.id;
      const channel = request.channel;
      // hasOwn, not `in`: names such as "toString" or "__proto__" are no channels.
      if (typeof channel !== 'string' || !Object.hasOwn(ARG_SCHEMAS, channel)) {
        throw new Error(`unknown channel ${JSON.stringify(channel)}`);
      }
      const args = parseArgs(
        channel as InvokeChannel,
        Array.isArray(request.args) ? request.args : [],
      );
      const handler = handlers[channel as InvokeChannel] as (...a: unknown[]) => unknown;
      return { id, ok: true, result: (await handler(...args)) ?? null };
    } catch (err) {
      return { id, ok: false, error: errorText(err) };
    }
  }
}

/** An upload in memory, so that a dropped file can be told a session or a capture by its content. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPLOAD_BYTES) throw new Error(`file larger than ${MAX_UPLOAD_BYTES_TEXT}`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
