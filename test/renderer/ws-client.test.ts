import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_METHODS } from '../../shared/contract';
import type { WsRequest } from '../../shared/ws-protocol';
import { RequestBook, backoffMs, parseServerMessage } from '../../renderer/bridge/request-book';
import { DISCONNECTED, WsClient } from '../../renderer/bridge/ws-client';
import type { SocketLike } from '../../renderer/bridge/ws-client';
import { invokeMethods, pushMethods } from '../../renderer/bridge/ws-bridge';

/** An in-memory socket: the test plays the server by reading `sent` and calling `receive`. */
class MemorySocket implements SocketLike {
  readyState = 0;
  sent: WsRequest[] = [];
  onopen: SocketLike['onopen'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  onmessage: SocketLike['onmessage'] = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data) as WsRequest);
  }
  close(): void {
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({} as Event);
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({} as CloseEvent);
  }
  receive(msg: unknown): void {
    this.onmessage?.({ data: JSON.stringify(msg) } as MessageEvent);
  }
}

describe('request book', () => {
  it('correlates responses with requests by id', async () => {
    const book = new RequestBook();
    const a = book.open('app:info', []);
    const b = book.open('model:chain', ['42']);
    expect(a.message.id).not.toBe(b.message.id);
    expect(book.settle({ id: b.message.id, ok: true, result: 'B' })).toBe(true);
    expect(book.settle({ id: a.message.id, ok: false, error: 'nope' })).toBe(true);
    await expect(b.result).resolves.toBe('B');
    await expect(a.result).rejects.toThrow('nope');
    expect(book.settle({ id: 999, ok: true, result: null })).toBe(false);
    expect(book.size).toBe(0);
  });

  it('rejects everything still waiting when the connection drops', async () => {
    const book = new RequestBook();
    const a = book.open('model:series', [{ rangeSec: 60 }]);
    const b = book.open('profiles:list', []);
    expect(book.failAll(DISCONNECTED)).toBe(2);
    await expect(a.result).rejects.toThrow(/model:series: disconnected from kvscope serve/);
    await expect(b.result).rejects.toThrow(DISCONNECTED);
  });

  it('parses responses and pushes and ignores anything else', () => {
    expect(parseServerMessage('{"id":1,"ok":true,"result":3}')).toEqual({
      id: 1,
      ok: true,
      result: 3,
    });
    expect(parseServerMessage('{"push":"update","payload":{}}')).toEqual({
      push: 'update',
      payload: {},
    });
    expect(parseServerMessage('not json')).toBeNull();
    expect(parseServerMessage('{"hello":1}')).toBeNull();
  });

  it('backs off exponentially up to 5 s', () => {
    expect([0, 1, 2, 3, 10, 50].map(backoffMs)).toEqual([250, 500, 1000, 2000, 5000, 5000]);
  });
});

describe('ws client', () => {
  let sockets: MemorySocket[];
  let client: WsClient | null;
  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    client = null;
  });
  afterEach(() => {
    client?.close();
    vi.useRealTimers();
  });
  const make = (states: string[] = []) => {
    client = new WsClient(
      'ws://x/ws',
      () => {
        const s = new MemorySocket();
        sockets.push(s);
        return s;
      },
      (st) => states.push(st),
    );
    return client;
  };

  it('queues requests until the socket opens, then resolves them from responses', async () => {
    const c = make();
    const p = c.invoke('app:info', []);
    const s = sockets[0]!;
    expect(s.sent).toHaveLength(0);
    s.open();
    expect(s.sent).toEqual([{ id: expect.any(Number), channel: 'app:info', args: [] }]);
    s.receive({ id: s.sent[0]!.id, ok: true, result: { version: '1' } });
    await expect(p).resolves.toEqual({ version: '1' });
  });

  it('rejects pending requests on disconnect, reconnects with backoff and reports the link state', async () => {
    const states: string[] = [];
    const c = make(states);
    sockets[0]!.open();
    const p = c.invoke('model:events', [{ offset: 0, limit: 10 }]);
    sockets[0]!.drop();
    await expect(p).rejects.toThrow(DISCONNECTED);
    expect(c.pending).toBe(0);
    expect(states).toEqual(['connecting', 'open', 'down']);
    await vi.advanceTimersByTimeAsync(250);
    expect(sockets).toHaveLength(2);
    sockets[1]!.open();
    expect(states[states.length - 1]).toBe('open');
    const q = c.invoke('profiles:list', []);
    const s = sockets[1]!;
    s.receive({ id: s.sent[0]!.id, ok: true, result: [] });
    await expect(q).resolves.toEqual([]);
  });

  it('delivers pushes to the listeners of their channel until unsubscribed', () => {
    const c = make();
    sockets[0]!.open();
    const got: unknown[] = [];
    const off = c.on('update', (p) => got.push(p));
    c.on('menu', () => got.push('wrong channel'));
    sockets[0]!.receive({ push: 'update', payload: { n: 1 } });
    off();
    sockets[0]!.receive({ push: 'update', payload: { n: 2 } });
    expect(got).toEqual([{ n: 1 }]);
  });

  it('maps every bridge method to its contract channel', async () => {
    const c = make();
    sockets[0]!.open();
    const methods = invokeMethods(c);
    expect(Object.keys(methods).sort()).toEqual(Object.keys(BRIDGE_METHODS).sort());
    void methods.getChain('123').catch(() => undefined);
    void methods.setDemo(true).catch(() => undefined);
    expect(sockets[0]!.sent.map((m) => [m.channel, m.args])).toEqual([
      ['model:chain', ['123']],
      ['demo:set', [true]],
    ]);
    const frames: number[] = [];
    pushMethods(c).onUpdate((f) => frames.push(f.n));
    sockets[0]!.receive({ push: 'update', payload: { n: 7 } });
    expect(frames).toEqual([7]);
  });
});
