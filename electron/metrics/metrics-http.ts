// `kvscope collect`'s HTTP side: GET /metrics (Prometheus text) and nothing else. On loopback it
// answers only requests whose Host is a loopback name (a page on another site that rebinds its DNS
// name to 127.0.0.1 gets nothing); bound to another address on purpose (--metrics-host, for
// Prometheus in a cluster, which scrapes by pod IP) it answers any Host: the page holds counts
// only, never prompt content, and takes no input.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { MetricsHub } from './metrics-hub';

/** Where /metrics is served, in `kvscope serve` and `kvscope collect` alike. */
export const METRICS_PATH = '/metrics';
export const DEFAULT_METRICS_PORT = 9464;

export interface MetricsServerOptions {
  hub: MetricsHub;
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export interface MetricsServer {
  /** http://host:port/metrics */
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** True for an address that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Serves the hub's /metrics until closed. */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  let port = opts.port;
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
    if (isLoopbackHost(opts.host) && !loopbackHostHeader(req.headers.host, port)) {
      return send(
        res,
        403,
        'this collector answers requests addressed to 127.0.0.1 or localhost\n',
      );
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== METRICS_PATH) return send(res, 404, `KV Scope serves ${METRICS_PATH} here\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET only\n');
    const text = await opts.hub.render();
    res.writeHead(200, { 'Content-Type': opts.hub.contentType });
    res.end(req.method === 'HEAD' ? undefined : text);
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
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function loopbackHostHeader(header: string | undefined, port: number): boolean {
  if (header === undefined) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(header.trim().toLowerCase());
  if (!m) return false;
  const portOk = m[2] === undefined ? port === 80 : Number(m[2]) === port;
  return portOk && isLoopbackHost(m[1] as string);
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
