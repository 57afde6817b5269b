// One browser tab's WebSocket: its requests answered through the contract's handlers, its frames
// pushed. What is queued for it is bounded: a tab that sends and never reads its replies stops
// being read (TCP pushes back on it); if it then takes nothing for a while, or asks for more than
// it could ever take, it is dropped, and everything queued for it goes with it.

import type { WebSocket } from 'ws';
import type { InvokeChannel } from '../../shared/contract';
import { ARG_SCHEMAS, parseArgs } from '../../shared/schemas';
import type { WsPush, WsResponse } from '../../shared/ws-protocol';
import { relayHandlers } from '../host/relay-handlers';
import type { ServiceLink } from '../host/service-link';
import type { FileActions } from '../service/invoke-handlers';

/** Limits of one client's outgoing queue (bytes handed to the socket and not yet written out). */
export interface WsLinkLimits {
  /** Frames are skipped, not queued, while more than this waits. */
  frameBytes: number;
  /** Past this, no request of the client is started or read until its queue drains to half. */
  pauseBytes: number;
  /** A reply that would take the queue past this drops the client. */
  dropBytes: number;
  /** A client over pauseBytes that takes none of it for this long is dropped (dead or hostile). */
  stallMs: number;
  /** Requests being answered at once; more wait unread in the socket. */
  inFlight: number;
}

export const DEFAULT_WS_LIMITS: WsLinkLimits = {
  frameBytes: 1 << 20,
  pauseBytes: 4 << 20,
  dropBytes: 64 << 20,
  stallMs: 5000,
  inFlight: 4,
};

/** Serves one client over `ws` until it closes. */
export function attachClient(
  ws: WebSocket,
  service: ServiceLink,
  files: FileActions,
  limits: WsLinkLimits = DEFAULT_WS_LIMITS,
): void {
  let queued = 0;
  let inFlight = 0;
  /** Requests read but not yet started: a socket chunk can hold hundreds at once. */
  let inbox: string[] = [];
  let paused = false;
  let lastProgress = Date.now();
  let stallTimer: NodeJS.Timeout | null = null;
  const over = () => queued > limits.pauseBytes;

  const watchStall = (): void => {
    stallTimer = null;
    if (!over()) return;
    const idle = Date.now() - lastProgress;
    // It reads nothing of what it asked for: drop it, and all that was queued for it with it.
    if (idle >= limits.stallMs) ws.terminate();
    else stallTimer = setTimeout(watchStall, limits.stallMs - idle);
  };

  /** Starts what may start, then reads on from the socket only while nothing waits. */
  const pump = (): void => {
    while (inbox.length > 0 && inFlight < limits.inFlight && !over()) {
      const text = inbox.shift() ?? '';
      inFlight += 1;
      void answer(text).then((reply) => {
        inFlight -= 1;
        send(reply);
        pump();
      });
    }
    if (over() && stallTimer === null) {
      // The stall is counted from when it went over the bound: an empty queue cannot progress.
      lastProgress = Date.now();
      stallTimer = setTimeout(watchStall, limits.stallMs);
    }
    const busy = over() || inFlight >= limits.inFlight || inbox.length > 0;
    if (!paused && busy) {
      paused = true;
      ws.pause();
    } else if (paused && !busy && queued <= limits.pauseBytes / 2) {
      paused = false;
      ws.resume();
    }
  };

  const send = (message: WsPush | WsResponse): void => {
    if (ws.readyState !== ws.OPEN) return;
    const text = JSON.stringify(message);
    const bytes = Buffer.byteLength(text);
    if (queued + bytes > limits.dropBytes) {
      // It asked for more than it reads: nothing more is built or kept for it.
      ws.terminate();
      return;
    }
    queued += bytes;
    client.setWritable(queued < limits.frameBytes);
    ws.send(text, () => {
      queued -= bytes;
      lastProgress = Date.now();
      client.setWritable(ws.readyState === ws.OPEN && queued < limits.frameBytes);
      pump();
    });
  };

  // The host builds this tab no frame while its queue holds more than frameBytes (setWritable).
  const client = service.connect((push, payload) => send({ push, payload }));
  const handlers = relayHandlers(client, files);
  ws.on('close', () => {
    client.close();
    inbox = [];
    if (stallTimer) clearTimeout(stallTimer);
  });
  // ws closes the socket itself on a protocol error (1009 for an oversized message); an 'error'
  // event nobody listens to would crash the whole serve process instead.
  ws.on('error', () => undefined);
  ws.on('message', (data) => {
    if (ws.readyState !== ws.OPEN) return;
    inbox.push(String(data));
    pump();
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
      return { id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
