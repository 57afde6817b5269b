// Bookkeeping of WebSocket requests: ids, the promises waiting on them, and rejection of all
// of them when the connection drops. Pure: no socket, no DOM.

import type { InvokeChannel } from '../../shared/contract';
import type { WsRequest, WsResponse, WsServerMessage, WsPush } from '../../shared/ws-protocol';

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
  channel: InvokeChannel;
}

export class RequestBook {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  /** Registers a request; returns the message to send and the promise of its result. */
  open(channel: InvokeChannel, args: unknown[]): { message: WsRequest; result: Promise<unknown> } {
    const id = this.nextId++;
    const result = new Promise<unknown>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, channel });
    });
    return { message: { id, channel, args }, result };
  }

  /** Settles the request a response answers; returns false for an unknown id. */
  settle(response: WsResponse): boolean {
    const w = this.waiting.get(response.id);
    if (!w) return false;
    this.waiting.delete(response.id);
    if (response.ok) w.resolve(response.result);
    else w.reject(new Error(response.error));
    return true;
  }

  /** Rejects one request (e.g. it could not be sent). */
  fail(id: number, reason: string): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    w.reject(new Error(`${w.channel}: ${reason}`));
  }

  /** Rejects every request still waiting: the connection is gone, their answers will not come. */
  failAll(reason: string): number {
    const all = [...this.waiting.entries()];
    this.waiting.clear();
    for (const [, w] of all) w.reject(new Error(`${w.channel}: ${reason}`));
    return all.length;
  }

  /** How many requests await an answer. */
  get size(): number {
    return this.waiting.size;
  }
}

/** Parses one server message; null when it is neither a response nor a push. */
export function parseServerMessage(text: string): WsServerMessage | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.push === 'string') return o as unknown as WsPush;
  if (typeof o.lost === 'string') return { lost: o.lost };
  if (typeof o.id === 'number' && typeof o.ok === 'boolean') {
    if (o.ok) return { id: o.id, ok: true, result: o.result };
    return { id: o.id, ok: false, error: typeof o.error === 'string' ? o.error : 'request failed' };
  }
  return null;
}

/** Next reconnect delay: doubling from 250 ms up to 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(5000, 250 * 2 ** Math.max(0, Math.min(attempt, 10)));
}
