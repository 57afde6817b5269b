// `kvscope serve` keeps its memory bounded where a client pushes: a WebSocket client that asks and
// never reads, and a 600 MB upload (generated as it is sent, never stored by the test). Memory is
// the serve process's own, read from /proc (VmRSS now, VmHWM the peak).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { UpdateFrame } from '../../shared/api-types';
import { HTTP_ROUTES, WS_PATH, type WsServerMessage } from '../../shared/ws-protocol';
import { ensureBuilt } from '../support/built-app';
import { startServe, type ServeProcess } from '../support/e2e-harness';

const MB = 1024 * 1024;
let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-serve-limits-'));
}, 180_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The serve process's resident memory now and at its peak, in bytes. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function dataDir(name: string): string {
  const d = path.join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

/** One capture line of the seed script: a BlockStored of one block. */
function storedLine(i: number, tokens: string): string {
  return `{"ts":${1_700_000_000 + i / 100},"type":"BlockStored","block_hashes":[${1000 + i}],"parent_block_hash":null,"token_ids":[${tokens}],"block_size":16,"lora_id":null,"medium":"GPU"}\n`;
}

/** A socket to the serve, as its own page would open it. */
function openSocket(serve: ServeProcess): Promise<WebSocket> {
  const url = new URL(serve.url);
  const ws = new WebSocket(`ws://${url.host}${WS_PATH}`, { origin: `http://${url.host}` });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The first update frame a fresh socket gets, and its answer to one call. */
async function lookIn(serve: ServeProcess): Promise<{ frame: UpdateFrame; info: WsServerMessage }> {
  const ws = await openSocket(serve);
  const got = new Promise<{ frame: UpdateFrame; info: WsServerMessage }>((resolve) => {
    let frame: UpdateFrame | null = null;
    let info: WsServerMessage | null = null;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as WsServerMessage;
      if ('push' in message) frame ??= message.payload as UpdateFrame;
      else info = message;
      if (frame && info) resolve({ frame, info });
    });
  });
  ws.send(JSON.stringify({ id: 1, channel: 'app:info', args: [] }));
  const result = await got;
  ws.close();
  return result;
}

describe('kvscope serve under clients that push', () => {
  it('drops a WebSocket client that sends and never reads, with memory bounded and freed', async () => {
    const capture = path.join(dir, 'events.jsonl');
    const tokens = Array.from({ length: 16 }, (_, i) => i).join(',');
    writeFileSync(capture, Array.from({ length: 6000 }, (_, i) => storedLine(i, tokens)).join(''));
    const serve = await startServe(dataDir('unread'), ['--import', capture]);
    try {
      const pid = serve.child.pid ?? 0;
      // Each reply is the newest 5,000 events, about a megabyte: 3,000 of them is gigabytes.
      const ask = (id: number) =>
        JSON.stringify({ id, channel: 'model:events', args: [{ offset: 0, limit: 5000 }] });
      const probe = await lookIn(serve);
      expect(probe.frame.kpis.storedBlocks).toBe(6000);
      const before = memory(pid).rss;
      for (const round of [1, 2]) {
        const greedy = await openSocket(serve);
        greedy.pause(); // it reads nothing from here on
        let closed = false;
        greedy.once('close', () => (closed = true));
        greedy.on('error', () => undefined);
        for (let id = 1; id <= 3000; id++) greedy.send(ask(id));
        // A paused socket notices the drop when it writes: keep asking until it is dropped.
        await expect
          .poll(
            () => {
              if (!closed) greedy.send(ask(0));
              return closed;
            },
            { timeout: 30_000, interval: 100 },
          )
          .toBe(true);
        // Everyone else is still served.
        expect((await lookIn(serve)).info).toMatchObject({
          ok: true,
          result: { transport: 'websocket' },
        });
        const now = memory(pid);
        expect(now.peak - before, `peak after round ${round}`).toBeLessThan(250 * MB);
      }
      // Two rounds peak no higher than a bounded one: what the first held was let go.
      expect(memory(pid).rss - before).toBeLessThan(250 * MB);
    } finally {
      await serve.stop();
    }
  }, 90_000);

  it('streams a 600 MB upload into the views with memory bounded, keeping the lines around a bad one', async () => {
    const serve = await startServe(dataDir('upload'));
    try {
      const pid = serve.child.pid ?? 0;
      const before = memory(pid).rss;
      // About 12 KB a line: 600 MB is some 50,000 events, each with 2,000 token ids (dropped).
      const tokens = Array.from({ length: 2000 }, (_, i) => 10_000 + i).join(',');
      const lineBytes = storedLine(0, tokens).length;
      const lines = Math.ceil((600 * MB) / lineBytes);
      const bad = [7, Math.floor(lines / 2)];
      let sent = 0;
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < lines; i++) {
            const line = bad.includes(i)
              ? '{"ts": 1, "type": "BlockStored", cut off\n'
              : storedLine(i, tokens);
            sent += line.length;
            yield line;
          }
        })(),
      );
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const url = new URL(`${HTTP_ROUTES.importCapture}?name=big.jsonl`, serve.url);
        const req = request(url, { method: 'POST' }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        body.pipe(req);
      });
      expect(sent).toBeGreaterThanOrEqual(600 * MB);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({
        status: 'done',
        name: 'big.jsonl',
        problems: 3,
      });
      const { frame } = await lookIn(serve);
      expect(frame.kpis.storedBlocks).toBe(lines - bad.length);
      expect(frame.view.problems.join('\n')).toMatch(
        new RegExp(`line ${(bad[1] ?? 0) + 1}: not JSON`),
      );
      // Nothing of the upload is held whole: not in memory, and not left on disk.
      const { peak } = memory(pid);
      expect(peak - before).toBeLessThan(300 * MB);
      expect(readdirSync(path.join(serve.dataDir, 'transfers'))).toEqual([]);
    } finally {
      await serve.stop();
    }
  }, 180_000);
});
