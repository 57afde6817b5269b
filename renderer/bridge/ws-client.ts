// One WebSocket to `kvscope serve`: requests with ids, pushes to listeners, reconnection with
// backoff. Requests waiting when the socket drops are rejected, never left hanging.

import type { InvokeChannel, PushChannel } from '../../shared/contract';
import { RequestBook, backoffMs, parseServerMessage } from './request-book';
import type { LinkState } from './connection-status';

/** The part of the DOM WebSocket this client uses (so it can run on any implementation). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: Event) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

const OPEN = 1;
export const DISCONNECTED = 'disconnected from kvscope serve';

export class WsClient {
  private readonly book = new RequestBook();
  private readonly listeners = new Map<PushChannel, Set<(payload: unknown) => void>>();
  private socket: SocketLike | null = null;
  private queue: string[] = [];
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly factory: SocketFactory,
    private readonly onState: (state: LinkState) => void = () => undefined,
    /** The server said that its service is gone (why, and what to do) before it closed. */
    private readonly onLost: (reason: string) => void = () => undefined,
  ) {
    this.connect();
  }

  /** Sends a request; resolves with the result, rejects on an error or a disconnect. */
  invoke(channel: InvokeChannel, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`${channel}: ${DISCONNECTED}`));
    const { message, result } = this.book.open(channel, args);
    const text = JSON.stringify(message);
    if (this.socket && this.socket.readyState === OPEN) {
      try {
        this.socket.send(text);
      } catch (e) {
        this.book.fail(message.id, e instanceof Error ? e.message : String(e));
      }
    } else {
      this.queue.push(text);
    }
    return result;
  }

  /** Subscribes to a push channel; returns the unsubscribe function. */
  on(channel: PushChannel, listener: (payload: unknown) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Requests waiting for an answer. */
  get pending(): number {
    return this.book.size;
  }

  /** Closes for good: rejects what waits, stops reconnecting. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const s = this.socket;
    this.socket = null;
    if (s) {
      s.onclose = null;
      s.close();
    }
    this.queue = [];
    this.book.failAll(DISCONNECTED);
  }

  private connect(): void {
    this.onState(this.attempt === 0 ? 'connecting' : 'down');
    let s: SocketLike;
    try {
      s = this.factory(this.url);
    } catch {
      this.dropped();
      return;
    }
    this.socket = s;
    s.onopen = () => {
      this.attempt = 0;
      this.onState('open');
      const queued = this.queue;
      this.queue = [];
      for (const text of queued) s.send(text);
    };
    s.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      const msg = parseServerMessage(ev.data);
      if (!msg) return;
      if ('push' in msg) {
        for (const l of [...(this.listeners.get(msg.push) ?? [])]) l(msg.payload);
      } else if ('lost' in msg) {
        this.onLost(msg.lost);
      } else {
        this.book.settle(msg);
      }
    };
    s.onerror = () => undefined;
    s.onclose = () => {
      if (this.socket === s) this.dropped();
    };
  }

  private dropped(): void {
    this.socket = null;
    this.queue = [];
    this.book.failAll(DISCONNECTED);
    if (this.closed) return;
    this.onState('down');
    const delay = backoffMs(this.attempt++);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.connect();
    }, delay);
  }
}
