// The redaction proof: prompt content published on the wire (token ids, extra_keys, cache_salt,
// metadata, session_id) reaches no WebSocket frame, download, screen, file or log of KV Scope,
// while the counts that replace it do (so the test would see a leak: it is not vacuous).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, constants as zlib } from 'node:zlib';
import { encode } from '@msgpack/msgpack';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import {
  clickRow,
  ensureBuilt,
  kpi,
  launchChromium,
  removeDir,
  runCli,
  showView,
  startServe,
  tempDir,
  type ServeProcess,
} from '../support/e2e-harness';
import { eventually } from '../support/wait-for';

const TOKEN_FIRST = 900_000_001;
const TOKEN_LAST = 900_009_999;
/** A token id printed anywhere: a standalone 9-digit number of the range. */
const TOKEN_RE = /(?<![\d])9000\d{5}(?![\d])/;
const SECRET_RE = /SECRET/;
const LEGACY_TOKENS = 37;
const MAP_TOKENS = 53;

let dir: string;
let pub: Publisher;
let endpoint: string;
let serve: ServeProcess | null = null;
let browser: Browser;
let publishing = true;
let publisherLoop: Promise<void> = Promise.resolve();
let nextToken = TOKEN_FIRST;
let nextHash = 18_200_000_000_000_000_000n;

function tokens(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(nextToken);
    nextToken = nextToken >= TOKEN_LAST ? TOKEN_FIRST : nextToken + 1;
  }
  return out;
}

function hashes(n: number): bigint[] {
  return Array.from({ length: n }, () => (nextHash += 7n));
}

/** One batch in both event encodings (and alternately both batch encodings), full of secrets. */
function batch(i: number): Uint8Array {
  const a = hashes(2);
  const b = hashes(2);
  const legacy = [
    'BlockStored',
    a,
    null,
    tokens(LEGACY_TOKENS),
    16,
    null,
    'GPU',
    // SGLang's metadata map where vLLM has lora_name.
    { cache_salt: 'SECRET-SALT' },
    [['SECRET-EXTRA-KEY', 900_000_123], null],
    0,
  ];
  const mapEvent = {
    type: 'BlockStored',
    block_hashes: b,
    parent_block_hash: a[1],
    token_ids: tokens(MAP_TOKENS),
    block_size: 16,
    lora_id: null,
    medium: 'CPU',
    lora_name: null,
    extra_keys: [['SECRET-EXTRA-KEY-MAP', 'SECRET-IMAGE-HASH'], null],
    cache_salt: 'SECRET-SALT',
    session_id: 'SECRET-SESSION',
    metadata: { cache_salt: 'SECRET-SALT-2' },
  };
  const removed = ['BlockRemoved', [a[0]], 'GPU'];
  const events = i % 3 === 2 ? [legacy, mapEvent, removed] : [legacy, mapEvent];
  const ts = 1_764_480_000 + i * 0.1;
  const body = i % 2 === 0 ? [ts, events, 0] : { ts, events, data_parallel_rank: 0 };
  return encode(body, { useBigInt64: true });
}

async function publishLoop(): Promise<void> {
  const seq = Buffer.alloc(8);
  for (let i = 0; publishing; i++) {
    seq.writeBigUInt64BE(BigInt(i));
    await pub.send(['kv-events', seq, batch(i)]);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** Fails on any token id or secret marker in `text` (named `what` in the message). */
function expectClean(what: string, text: string): void {
  expect(TOKEN_RE.exec(text)?.[0], `a token id in ${what}`).toBeUndefined();
  expect(SECRET_RE.exec(text)?.[0], `a secret marker in ${what}`).toBeUndefined();
}

/** Fails when the bytes hold a token id as msgpack writes it (0xce + u32 big-endian). */
function expectNoTokenBytes(what: string, bytes: Buffer): void {
  for (let t = TOKEN_FIRST; t < TOKEN_FIRST + 200; t++) {
    const needle = Buffer.alloc(5);
    needle[0] = 0xce;
    needle.writeUInt32BE(t, 1);
    expect(bytes.includes(needle), `token ${t} as bytes in ${what}`).toBe(false);
  }
}

/** The text of a file, gunzipped when it is gzip (a recording may end mid-stream). */
function fileText(bytes: Buffer): { text: string; raw: Buffer } {
  const raw =
    bytes[0] === 0x1f && bytes[1] === 0x8b
      ? gunzipSync(bytes, { finishFlush: zlib.Z_SYNC_FLUSH })
      : bytes;
  return { text: raw.toString('utf8'), raw };
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

beforeAll(async () => {
  ensureBuilt();
  dir = await tempDir('redaction');
  pub = new Publisher({ linger: 0 });
  await pub.bind('tcp://127.0.0.1:*');
  endpoint = pub.lastEndpoint ?? '';
  publisherLoop = publishLoop();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  publishing = false;
  await publisherLoop.catch(() => undefined);
  await browser?.close();
  await serve?.stop();
  pub?.close();
  await removeDir(dir);
});

describe('redaction', () => {
  it('has detectors that catch the content as it is published', () => {
    const payload = Buffer.from(batch(0));
    expect(() => expectNoTokenBytes('a raw payload', payload)).toThrow();
    const raw = JSON.stringify({ token_ids: tokens(3), cache_salt: 'SECRET-SALT' });
    expect(() => expectClean('raw JSON', raw)).toThrow(/token id/);
    expect(() => expectClean('a marker', '{"session_id":"SECRET-SESSION"}')).toThrow(/secret/);
  });

  it('keeps prompt content out of frames, downloads, the page, files and logs of serve', async () => {
    const dataDir = path.join(dir, 'data');
    serve = await startServe(dataDir, ['--endpoint', endpoint]);
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    const page: Page = await context.newPage();
    const frames: string[] = [];
    page.on('websocket', (ws) => {
      ws.on('framereceived', (f) => frames.push(String(f.payload)));
      ws.on('framesent', (f) => frames.push(String(f.payload)));
    });
    await page.goto(serve.url);
    await page.getByTestId('kpi-events').waitFor({ timeout: 20_000 });
    await eventually(
      () => kpi(page, 'events'),
      (n) => n >= 60,
      'events to arrive',
      30_000,
    );

    const pages: string[] = [];
    const grab = async () => pages.push(await page.content());
    await grab();
    await showView(page, 'Events');
    await page.getByTestId('event-row').first().waitFor({ timeout: 20_000 });
    await grab();
    const eventsText = await page.locator('body').innerText();
    await showView(page, 'Chains');
    await clickRow(page.getByTestId('chain-row').first());
    await page.getByTestId('block-row').first().waitFor({ timeout: 20_000 });
    await grab();
    await showView(page, 'Connections');
    await page.locator('details.fingerprint summary').first().click();
    await grab();
    pages.push(await page.locator('body').innerText());

    const session = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Save session as' }).click();
    const sessionPath = await (await session).path();
    const sessionFile = fileText(await readFile(sessionPath));
    const csv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csvText = await readFile(await (await csv).path(), 'utf8');
    await context.close();
    await serve.stop();
    const logs = serve.stdout() + serve.stderr();
    serve = null;

    // Not vacuous: the counts that stand for the content are there, and so is the traffic.
    expect(frames.length).toBeGreaterThan(5);
    const allFrames = frames.join('\n');
    expect(allFrames).toContain(`"token_count":${LEGACY_TOKENS}`);
    expect(allFrames).toContain(`"token_count":${MAP_TOKENS}`);
    expect(eventsText).toContain(`${LEGACY_TOKENS} tokens`);
    expect(eventsText).toContain(`${MAP_TOKENS} tokens`);
    expect(sessionFile.text).toContain(`"token_count":${MAP_TOKENS}`);
    expect(sessionFile.text).toMatch(/"session_id_count":1/);
    expect(csvText.split('\n').length).toBeGreaterThan(2);
    expect(logs).toContain('serving on');

    expectClean('WebSocket frames', allFrames);
    pages.forEach((html, i) => expectClean(`page snapshot ${i}`, html));
    expectClean('the saved session', sessionFile.text);
    expectNoTokenBytes('the saved session', sessionFile.raw);
    expectClean('the rates CSV', csvText);
    expectClean('serve stdout/stderr', logs);
    const files = await filesUnder(dataDir);
    expect(files.some((f) => f.includes('recording'))).toBe(true);
    let recordingHasCounts = false;
    for (const f of files) {
      const { text, raw } = fileText(await readFile(f));
      expectClean(path.relative(dataDir, f), text);
      expectNoTokenBytes(path.relative(dataDir, f), raw);
      if (text.includes(`"token_count":${LEGACY_TOKENS}`)) recordingHasCounts = true;
    }
    expect(recordingHasCounts).toBe(true);
  }, 120_000);

  it('keeps prompt content out of kvscope capture, as JSON lines and as text', async () => {
    const json = runCli(['capture', '--endpoint', endpoint, '--json', '--max', '40']);
    const text = runCli(['capture', '--endpoint', endpoint, '--max', '40']);
    try {
      expect(await json.exited).toBe(0);
      expect(await text.exited).toBe(0);
    } finally {
      await json.stop();
      await text.stop();
    }
    expect(json.stdout()).toContain(`"token_count":${LEGACY_TOKENS}`);
    expect(json.stdout()).toContain(`"token_count":${MAP_TOKENS}`);
    expect(text.stdout()).toContain(`tokens=${LEGACY_TOKENS}`);
    expect(text.stdout()).toContain(`tokens=${MAP_TOKENS}`);
    expect(json.stdout().trim().split('\n')).toHaveLength(40);
    for (const [what, out] of [
      ['capture --json stdout', json.stdout()],
      ['capture --json stderr', json.stderr()],
      ['capture stdout', text.stdout()],
      ['capture stderr', text.stderr()],
    ] as const) {
      expectClean(what, out);
    }
  }, 60_000);
});
