// `kvscope collect`'s HTTP side: GET /metrics (Prometheus text, or OpenMetrics when asked) and nothing else, behind the same
// door as `kvscope serve`: the Host must name the address served (a page of another site whose DNS
// name rebinds to 127.0.0.1 gets nothing), and off loopback every request needs the token, which
// Prometheus sends as `Authorization: Bearer` (its scrape config's `authorization.credentials`).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createDoor } from '../serve/door';
import { refusalBody } from '../../shared/ws-protocol';
import type { MetricsFormat, MetricsHub, MetricsText } from './metrics-hub';

/** Where /metrics is served, in `kvscope serve` and `kvscope collect` alike. */
export const METRICS_PATH = '/metrics';
export const DEFAULT_METRICS_PORT = 9464;

export interface MetricsServerOptions {
  hub: MetricsHub;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The token off loopback (default: a new random one). */
  token?: string;
}

export interface MetricsServer {
  /** http://host:port/metrics */
  url: string;
  /** What a scrape must send as `Authorization: Bearer` off loopback; null on loopback. */
  token: string | null;
  close(): Promise<void>;
}

/** Serves the hub's /metrics until closed. */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  let port = opts.port;
  const door = createDoor(opts.host, opts.token, true);
  const server = createServer((req, res) => {
    answer(req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else
        send(
          res,
          500,
          `could not render the metrics: ${err instanceof Error ? err.message : err}\n`,
        );
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = door.check(req, port);
    if (verdict.kind !== 'pass') {
      // The body serve gives a refusal: {"error": reason}.
      res.writeHead(verdict.status, { 'Content-Type': 'application/json' });
      res.end(refusalBody(verdict.message));
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== METRICS_PATH) return send(res, 404, `KV Scope serves ${METRICS_PATH} here\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET only\n');
    await sendMetrics(req, res, (format) => opts.hub.text(format));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`--metrics-port ${opts.port} is in use: pick another (0 = any free port)`)
          : err,
      ),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : opts.port;
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}${METRICS_PATH}`,
    token: door.token,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers a scrape in the format its Accept header prefers (serve and collect alike); `render`
 * gives the text, from a hub in this thread or from serve's service thread.
 */
export async function sendMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  render: (format: MetricsFormat) => Promise<MetricsText>,
): Promise<void> {
  const { contentType, text } = await render(metricsFormat(req.headers.accept));
  res.writeHead(200, { 'Content-Type': contentType, Vary: 'Accept' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/**
 * OpenMetrics when the Accept header ranks application/openmetrics-text at least as high as
 * plain text (Prometheus sends both, OpenMetrics first); Prometheus text otherwise.
 */
export function metricsFormat(accept: string | undefined): MetricsFormat {
  let open = 0;
  let text = 0;
  for (const part of (accept ?? '').split(',')) {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'application/openmetrics-text') open = Math.max(open, q);
    else if (type === 'text/plain') text = Math.max(text, q);
  }
  return open > 0 && open >= text ? 'openmetrics' : 'prometheus';
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
