// A real HTTP server on 127.0.0.1 (a free port) whose answer a test sets and changes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TextServer {
  url: (path?: string) => string;
  port: number;
  /** Requests answered so far. */
  hits: number;
  set(handler: Handler): void;
  close(): Promise<void>;
}

/** A handler answering `text` as Prometheus text (what serveText starts with). */
export function textHandler(text: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(text);
  };
}

/** Serves `text` at every path (as text/plain) until set() changes the handler. */
export async function serveText(text: string): Promise<TextServer> {
  let handler: Handler = textHandler(text);
  const server: Server = createServer((req, res) => {
    out.hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const out: TextServer = {
    port,
    hits: 0,
    url: (path = '/metrics') => `http://127.0.0.1:${port}${path}`,
    set: (h) => (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return out;
}

/** A loopback port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const s = await serveText('');
  const port = s.port;
  await s.close();
  return port;
}
