// Uploads to `kvscope serve` over real HTTP: streamed to a transfer file, never held whole, the size
// limit enforced while the body streams (an endless body is refused), the good lines of a file with
// a bad one kept, and nothing left behind.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost, type HttpHost } from '../../electron/serve/http-host';
import { KvScopeService } from '../../electron/service/service';
import { linkInThread } from '../support/in-thread-host';
import type { UpdateFrame } from '../../shared/api-types';
import { HTTP_ROUTES } from '../../shared/ws-protocol';

const LIMIT = 1024 * 1024;
let dir: string;
let service: KvScopeService;
let host: HttpHost;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-uploads-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>KV Scope</title>');
  service = await KvScopeService.start({
    dataDir: path.join(dir, 'data'),
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
  });
  host = await startHttpHost({
    service: linkInThread(service),
    rendererDir: dir,
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(dir, 'data'),
    maxUploadBytes: LIMIT,
  });
});

afterAll(async () => {
  await host?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The next update frame the service sends. */
function nextFrame(): Promise<UpdateFrame> {
  return new Promise((resolve) => {
    const sub = service.subscribe({
      send: (frame) => {
        sub.close();
        resolve(frame);
      },
    });
  });
}

const transfers = () => readdirSync(path.join(dir, 'data', 'transfers'));

function captureLine(i: number): string {
  return `{"ts":${1_700_000_000 + i},"type":"BlockStored","block_hashes":[${5000 + i}],"parent_block_hash":null,"block_size":16,"medium":"GPU"}\n`;
}

/**
 * POSTs a body that never ends (or `total` bytes), written as fast as the server takes it; resolves
 * with the answer and how much had been written when it came.
 */
function postEndless(
  route: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; written: number }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(new URL(route, host.url), { method: 'POST', headers }, (res) => {
      answered = true;
      const at = written;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, written: at });
      });
    });
    // The server cuts the connection after its answer: that is expected, not a failure.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.from(captureLine(0).repeat(400));
    const write = (): void => {
      while (!answered && req.write(chunk)) written += chunk.length;
      if (!answered) {
        written += chunk.length;
        req.once('drain', write);
      }
    };
    write();
  });
}

describe('uploads to kvscope serve', () => {
  it('refuses an endless upload at the size limit, while it streams', async () => {
    const answer = await postEndless(`${HTTP_ROUTES.importCapture}?name=endless.jsonl`);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      status: 'failed',
      action: 'import',
      name: 'endless.jsonl',
      error: expect.stringMatching(
        /larger than the 1 MiB an upload may be; open it with `kvscope serve --open FILE`/,
      ),
    });
    // It answered a body that had no end: it cannot have waited for the end.
    expect(answer.written).toBeGreaterThan(LIMIT);
    expect(service.kpis().storedBlocks).toBe(0);
    await expect.poll(transfers, { timeout: 5000 }).toEqual([]);
  });

  it('refuses an upload whose declared length is over the limit before reading it', async () => {
    const answer = await postEndless(`${HTTP_ROUTES.openSession}?name=huge.gz`, {
      'Content-Length': String(LIMIT * 1000),
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatch(/larger than the 1 MiB/);
    await expect.poll(transfers, { timeout: 5000 }).toEqual([]);
  });

  it('keeps the good lines before and after a bad one, and leaves no transfer file', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => captureLine(i));
    lines[0] = '{"ts": 1, "type": "BlockStored", "block_hashes": [1],\n';
    lines[150] = 'garbage\n';
    const res = await fetch(new URL(`${HTTP_ROUTES.importCapture}?name=mixed.jsonl`, host.url), {
      method: 'POST',
      body: lines.join(''),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'done',
      action: 'imported',
      name: 'mixed.jsonl',
      problems: 2,
    });
    expect(service.kpis().storedBlocks).toBe(298);
    const problems = (await nextFrame()).view.problems.join('\n');
    expect(problems).toMatch(/line 1: not JSON/);
    expect(problems).toMatch(/line 151: not JSON/);
    expect(transfers()).toEqual([]);
    service.backToLive();
  });

  it('opens an upload through the session route that is a capture, told by its content', async () => {
    const body = Array.from({ length: 10 }, (_, i) => captureLine(i)).join('');
    const res = await fetch(new URL(`${HTTP_ROUTES.openSession}?name=dropped.jsonl`, host.url), {
      method: 'POST',
      body,
    });
    expect(await res.json()).toMatchObject({ status: 'done', name: 'dropped.jsonl', problems: 0 });
    expect(service.kpis().storedBlocks).toBe(10);
    expect(transfers()).toEqual([]);
    service.backToLive();
  });
});
