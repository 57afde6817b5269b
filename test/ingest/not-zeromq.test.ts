// A source pointed at a port that is not ZeroMQ (an HTTP server): ZeroMQ connects over TCP, the
// handshake fails, it retries every 100 ms. The state must not follow each attempt, and the hint
// must say what is wrong (not "connected, but no events").
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import type { SourceConfig } from '../../electron/ingest/source-config';
import type { SourceHealth } from '../../shared/api-types';
import { closedPort } from '../metrics/http-text-server';
import { waitFor } from '../support/wait-for';
import { recordingSink } from './helpers';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

/** A source on 127.0.0.1:port that says why it is silent after a second. */
function onPort(port: number, mode: SourceConfig['mode']): SourceConfig {
  const endpoint = `tcp://127.0.0.1:${port}`;
  return {
    id: 'src',
    name: mode,
    mode,
    topic: '',
    endpoint,
    replayEndpoint: null,
    profileId: null,
    stallAfterSec: 1,
  };
}

describe('a source on a port that does not speak ZeroMQ', () => {
  it('stays connecting without flapping and says the port is no ZeroMQ publisher', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => res.end('hello'));
    server.on('connection', () => hits++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const port = (server.address() as AddressInfo).port;
    const s = new KvSource(onPort(port, 'connect'), recordingSink().sink, {});
    open.push(s);
    const seen: SourceHealth[] = [];
    s.onStatus((h) => seen.push(h));
    await s.start();
    await waitFor(() => s.status().hint !== null, 'the hint');
    // ZeroMQ tried more than once meanwhile; the source said so once, not at each attempt.
    await waitFor(() => hits >= 3, 'several connection attempts');
    expect(s.status().state).toBe('connecting');
    expect(new Set(seen.map((h) => h.state))).toEqual(new Set(['connecting']));
    expect(s.status().hint).toMatch(
      new RegExp(
        `^tcp://127\\.0\\.0\\.1:${port} accepts TCP connections but does not answer as a ZeroMQ publisher`,
      ),
    );
    expect(s.status().hint).not.toMatch(/^connected to/);
  });

  it('tells a client that connected to a bound source without ZeroMQ from a silent publisher', async () => {
    const port = await closedPort();
    const s = new KvSource(onPort(port, 'bind'), recordingSink().sink, {});
    open.push(s);
    await s.start();
    // A browser or curl on the port: TCP, a request line, no ZeroMQ greeting; it stays.
    const client = net.connect(port, '127.0.0.1');
    open.push({ close: () => client.destroy() });
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(() => s.status().hint !== null, 'the hint');
    expect(s.status().state).toBe('waiting');
    const hint = new RegExp(
      `^something connected to tcp://127\\.0\\.0\\.1:${port} but did not speak ZeroMQ`,
    );
    expect(s.status().hint).toMatch(hint);
    expect(s.status().hint).not.toMatch(/^connected to/);
  });
});
