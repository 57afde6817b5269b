// The service behind `kvscope serve`, over its real transport: HTTP + WebSocket on loopback, fed by
// the simulator over real ZeroMQ.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FileResult, UpdateFrame } from '../../shared/api-types';
import { fileResultNotice } from '../../shared/file-result';
import type { InvokeChannel } from '../../shared/contract';
import { HTTP_ROUTES, WS_PATH, type WsServerMessage } from '../../shared/ws-protocol';
import { startHttpHost, type HttpHost } from '../../electron/serve/http-host';
import { KvScopeService } from '../../electron/service/service';
import { linkInThread } from '../support/in-thread-host';
import { SimPublisher } from '../../electron/sim/publisher';
import type { PublishedBatch } from '../../electron/sim/types';

let dir: string;
let sim: SimPublisher;
let service: KvScopeService;
let host: HttpHost;
const published: PublishedBatch[] = [];

/** A browser tab's side of the socket: calls, frames, and whether to ack them. */
class Client {
  readonly frames: UpdateFrame[] = [];
  private readonly pending = new Map<number, (m: WsServerMessage) => void>();
  private nextId = 1;
  private constructor(
    readonly ws: WebSocket,
    private readonly autoAck: boolean,
  ) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as WsServerMessage;
      if ('push' in message) {
        const frame = message.payload as UpdateFrame;
        this.frames.push(frame);
        if (this.autoAck) void this.call('frames:ack', frame.n);
      } else if ('id' in message) this.pending.get(message.id)?.(message);
    });
  }
  static open(options: { autoAck?: boolean; origin?: string } = {}): Promise<Client> {
    const ws = new WebSocket(`${host.url.replace('http', 'ws').replace(/\/$/, '')}${WS_PATH}`, {
      origin: options.origin ?? host.url.replace(/\/$/, ''),
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Client(ws, options.autoAck ?? true)));
      ws.once('error', reject);
    });
  }
  call(channel: InvokeChannel | string, ...args: unknown[]): Promise<WsServerMessage> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, channel, args }));
    });
  }
  get last(): UpdateFrame | undefined {
    return this.frames.at(-1);
  }
  close(): void {
    this.ws.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-serve-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>KV Scope</title>');
  sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 11, replay: true });
  sim.onBatch((b) => published.push(b));
  const rank = sim.ranks[0];
  if (!rank) throw new Error('no rank');
  service = await KvScopeService.start({
    dataDir: path.join(dir, 'data'),
    endpoints: [
      {
        name: 'sim',
        endpoint: rank.pubEndpoint,
        mode: 'connect',
        topic: '',
        replayEndpoint: rank.replayEndpoint,
        dpRanks: 1,
      },
    ],
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 20,
    // Run from the sources, the service names no build: this one stands in for it.
    openCache: { codeId: 'serve-test' },
  });
  host = await startHttpHost({
    service: linkInThread(service),
    rendererDir: dir,
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(dir, 'data'),
  });
});

afterAll(async () => {
  await host?.close();
  await service?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kvscope serve', () => {
  it('answers contract calls over the socket and refuses bad ones with a reason', async () => {
    const client = await Client.open();
    expect(await client.call('app:info')).toMatchObject({
      ok: true,
      result: { transport: 'websocket' },
    });
    const profiles = await client.call('profiles:list');
    expect(profiles).toMatchObject({ ok: true, result: [{ name: 'sim' }] });
    expect(await client.call('model:series', { rangeSec: -1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid call to model:series.*rangeSec/),
    });
    expect(await client.call('no:such-channel')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown channel/),
    });
    expect(await client.call('session:save-as')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/api\/session\/save/),
    });
    client.close();
  });

  it('refuses a socket from another origin (any web page can reach localhost)', async () => {
    await expect(Client.open({ origin: 'http://evil.example' })).rejects.toThrow(/401|403/);
  });

  it('counts exactly what the simulator published, from the first batch it received', async () => {
    const client = await Client.open();
    // ZeroMQ drops what is published before the subscription is in place: publish until it arrives.
    await expect
      .poll(
        async () => {
          await sim.publish(1);
          return client.last?.sources[0]?.counters.messages ?? 0;
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBeGreaterThan(0);
    await sim.publish(300);
    const lastSeq = published.at(-1)?.seq;
    await expect
      .poll(() => service.events({ offset: 0, limit: 1 }).rows[0]?.seq, { timeout: 10_000 })
      .toBe(lastSeq);
    const firstSeq = Math.min(...service.events({ offset: 0, limit: 5000 }).rows.map((r) => r.seq));
    let stored = 0;
    let removed = 0;
    for (const batch of published.filter((b) => b.seq >= firstSeq)) {
      for (const event of batch.events) {
        if (event.type === 'BlockStored') stored += event.block_hashes.length;
        if (event.type === 'BlockRemoved') removed += event.block_hashes.length;
      }
    }
    await expect.poll(() => client.last?.kpis.storedBlocks, { timeout: 10_000 }).toBe(stored);
    expect(client.last?.kpis.removedBlocks).toBe(removed);
    expect(client.last?.sources[0]?.state).toBe('connected');
    client.close();
  });

  it('sends a renderer that never acknowledges one frame per ack timeout, however much changes', async () => {
    const startedAt = Date.now();
    const silent = await Client.open({ autoAck: false });
    const watcher = await Client.open();
    await expect.poll(() => silent.frames.length, { timeout: 5000 }).toBe(1);
    await expect.poll(() => watcher.frames.length, { timeout: 5000 }).toBeGreaterThan(0);
    for (let round = 0; round < 5; round++) {
      const seen = watcher.frames.length;
      await sim.publish(10);
      await expect.poll(() => watcher.frames.length, { timeout: 5000 }).toBeGreaterThan(seen);
    }
    // The ack timeout (3 s) re-sends to a renderer that may have reloaded: at most one per period.
    const allowed = 1 + Math.floor((Date.now() - startedAt) / 3000);
    expect(silent.frames.length).toBeLessThanOrEqual(allowed);
    expect(watcher.frames.length).toBeGreaterThanOrEqual(6);
    silent.close();
    watcher.close();
  });

  it('downloads the live session and opens it again with identical totals', async () => {
    const client = await Client.open();
    const liveKpis = service.kpis();
    const download = await fetch(new URL(HTTP_ROUTES.saveSession, host.url));
    expect(download.headers.get('content-disposition')).toMatch(
      /attachment; filename=".+\.kvscope\.jsonl\.gz"/,
    );
    const bytes = Buffer.from(await download.arrayBuffer());
    const upload = await fetch(new URL(`${HTTP_ROUTES.openSession}?name=saved.gz`, host.url), {
      method: 'POST',
      body: bytes,
      headers: { Origin: host.url.replace(/\/$/, '') },
    });
    expect(await upload.json()).toMatchObject({
      status: 'done',
      action: 'opened',
      name: 'saved.gz',
    });
    await expect.poll(() => client.last?.view.kind, { timeout: 5000 }).toBe('session');
    const opened = client.last?.kpis;
    expect(opened?.storedBlocks).toBe(liveKpis.storedBlocks);
    expect(opened?.removedBlocks).toBe(liveKpis.removedBlocks);
    expect(opened?.residentBlocks).toBe(liveKpis.residentBlocks);
    await client.call('session:back-to-live');
    await expect.poll(() => client.last?.view.kind, { timeout: 5000 }).toBe('live');
    // Uploaded again, it opens as its first open left it, though that upload's file is gone.
    const cacheDir = path.join(dir, 'data', 'open-cache');
    await expect
      .poll(() => readdirSync(cacheDir).filter((n) => n.endsWith('.state.br')).length)
      .toBe(1);
    const again = await fetch(new URL(`${HTTP_ROUTES.openSession}?name=saved.gz`, host.url), {
      method: 'POST',
      body: bytes,
      headers: { Origin: host.url.replace(/\/$/, '') },
    });
    const result = (await again.json()) as FileResult;
    expect(result).toMatchObject({ status: 'done', action: 'opened', restored: true });
    expect(fileResultNotice(result)?.text).toBe('Opened saved.gz (as its last open left it)');
    await expect.poll(() => client.last?.view.kind, { timeout: 5000 }).toBe('session');
    expect(client.last?.kpis.residentBlocks).toBe(liveKpis.residentBlocks);
    expect(client.last?.kpis.storedBlocks).toBe(liveKpis.storedBlocks);
    await client.call('session:back-to-live');
    await expect.poll(() => client.last?.view.kind, { timeout: 5000 }).toBe('live');
    client.close();
  });

  it('says plainly what it could not read from a bad upload, and keeps the live view', async () => {
    const client = await Client.open();
    const upload = await fetch(new URL(`${HTTP_ROUTES.openSession}?name=junk.gz`, host.url), {
      method: 'POST',
      body: Buffer.from('this is not a session\n'),
      headers: { Origin: host.url.replace(/\/$/, '') },
    });
    const result = (await upload.json()) as FileResult;
    expect(result.status).toBe('failed');
    expect(fileResultNotice(result)?.text).toMatch(/could not open junk\.gz: .*session/i);
    await expect.poll(() => client.last?.view.progress, { timeout: 5000 }).toBeNull();
    expect(client.last?.view.kind).toBe('live');
    expect(client.last?.view.problems).toEqual([]);
    client.close();
  });

  it('refuses a download another site makes the browser ask for, and a malformed path', async () => {
    const crossSite = await fetch(new URL(HTTP_ROUTES.saveSession, host.url), {
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const ownPage = await fetch(new URL(HTTP_ROUTES.ratesCsv, host.url), {
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(ownPage.status).toBe(200);
    expect(await ownPage.text()).toMatch(/^time_s,time,bin_s,stored_per_s,removed_per_s/);
    const malformed = await fetch(new URL('/%E0%A4%A', host.url));
    expect(malformed.status).toBe(400);
  });

  it('refuses an upload posted from another origin', async () => {
    const upload = await fetch(new URL(`${HTTP_ROUTES.openSession}?name=x`, host.url), {
      method: 'POST',
      body: 'x',
      headers: { Origin: 'http://evil.example' },
    });
    expect(upload.status).toBe(403);
  });

  it('ends a static response whose file cannot be read, and keeps serving', async () => {
    // A socket file passes stat but fails to open: the read stream errors after the headers.
    const unreadable = createServer();
    await new Promise<void>((resolve) => unreadable.listen(path.join(dir, 'broken.js'), resolve));
    try {
      await expect(fetch(new URL('/broken.js', host.url)).then((r) => r.text())).rejects.toThrow();
      const page = await fetch(host.url);
      expect(await page.text()).toContain('KV Scope');
    } finally {
      await new Promise((resolve) => unreadable.close(resolve));
    }
  });

  it('names no channel from the object prototype as a known one', async () => {
    const client = await Client.open();
    for (const channel of ['toString', 'constructor', '__proto__']) {
      expect(await client.call(channel)).toMatchObject({
        ok: false,
        error: expect.stringMatching(/unknown channel/),
      });
    }
    client.close();
  });

  it('drops a socket that sends an oversized message and keeps serving the others', async () => {
    const bad = await Client.open();
    const closed = new Promise<number>((resolve) => bad.ws.once('close', resolve));
    bad.ws.send('x'.repeat((1 << 20) + 1));
    expect(await closed).toBe(1009);
    const good = await Client.open();
    expect(await good.call('app:info')).toMatchObject({ ok: true });
    good.close();
  });
});
