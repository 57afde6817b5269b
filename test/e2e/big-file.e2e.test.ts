// A big session file in the browser: its progress shows from the moment it is chosen, moves
// through the upload and the reading, and Cancel stops either while the live view stays.
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { CDPSession, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  fileProgress,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { eventually } from '../support/wait-for';

const EVENTS = 200_000;

const ws = useE2eWorkspace('big-file');
let file: string;
let serve: ServeProcess;
let page: Page;
let cdp: CDPSession;

/** A session of EVENTS stores of pseudo-random 64-bit hashes (so gzip cannot shrink it much). */
function bigSession(): Buffer {
  const lines = [JSON.stringify(makeHeader('test', new Date(0), []))];
  let x = 0x9e3779b97f4a7c15n;
  const next = () => {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return x.toString();
  };
  for (let i = 0; i < EVENTS; i++) {
    const rec = stored('big', 1_700_000_000 + i / 100, [next(), next(), next()]);
    lines.push(encodeRecord({ k: 'event', rec: { ...rec, seq: i } }));
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

beforeAll(async () => {
  file = await ws.file('big.kvscope.jsonl.gz', bigSession());
  // No demo and no engine: the live view stays empty, so "the view stayed" is plain to check.
  serve = await ws.serve('data', ['--endpoint', 'tcp://127.0.0.1:9']);
  page = await openApp(ws.browser, serve.url);
  cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
}, 120_000);

/** Chooses the big file through the header's Open session button. */
async function chooseBigFile(): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open session' }).click();
  await (await chooser).setFiles(file);
}

/** What the progress bar says now, or null when there is none. */
const progress = () => fileProgress(page);

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, name) });

describe('a big session file', () => {
  it('shows the upload moving from the moment the file is chosen, and stops it on Cancel', async () => {
    // A slow link (4 MiB/s up), so the upload lasts long enough to be watched.
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 4 * 1024 * 1024,
    });
    await chooseBigFile();
    const first = await eventually(progress, (p) => p !== null, 'the progress bar');
    expect(first?.label).toBe('Uploading big.kvscope.jsonl.gz');
    const moving = await eventually(
      progress,
      (p) => p !== null && p.label.startsWith('Uploading') && p.percent > (first?.percent ?? 0),
      'the upload to move',
    );
    expect(moving?.percent).toBeLessThan(100);
    await shot('open-big-uploading-1280.png');
    await page.getByTestId('progress-cancel').click();
    await page.getByTestId('notice').filter({ hasText: 'stopped' }).waitFor({ timeout: 20_000 });
    await expect.poll(progress, { timeout: 20_000 }).toBeNull();
    expect(await page.getByTestId('badge-session').count()).toBe(0);
    expect(await page.getByTestId('view-title').textContent()).toContain('Live');
  }, 90_000);

  it('shows the reading move through the file, bytes of total, and stops it on Cancel', async () => {
    // The first test's notice says "stopped" too: out of the way, so this one's is the one read.
    const earlier = page.getByTestId('notice').filter({ hasText: 'stopped' });
    if ((await earlier.count()) > 0) await earlier.getByRole('button', { name: /Dismiss/ }).click();
    await earlier.waitFor({ state: 'detached', timeout: 20_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await chooseBigFile();
    const reading = await eventually(
      progress,
      (p) => p !== null && p.label.startsWith('Reading') && p.percent > 0,
      'the service to read the file',
      60_000,
    );
    const later = await eventually(
      progress,
      (p) => p !== null && p.label.startsWith('Reading') && p.percent > (reading?.percent ?? 0),
      'the reading to move on',
      60_000,
    );
    expect(later?.percent).toBeLessThan(100);
    expect(await page.getByTestId('progress-detail').textContent()).toMatch(
      /^\d+% · [\d.]+ (KiB|MiB) of [\d.]+ MiB$/,
    );
    await shot('open-big-reading-1280.png');
    await page.getByTestId('progress-cancel').click();
    const notice = page.getByTestId('notice').filter({ hasText: 'stopped opening' });
    await notice.waitFor({ timeout: 20_000 });
    expect(await notice.textContent()).toContain('the view stays as it was');
    await expect.poll(progress, { timeout: 20_000 }).toBeNull();
    expect(await page.getByTestId('badge-session').count()).toBe(0);
    await shot('open-big-cancelled-1280.png');
  }, 120_000);

  it('opens it whole when left to finish', async () => {
    await chooseBigFile();
    await page.getByTestId('badge-session').waitFor({ timeout: 120_000 });
    await expect
      .poll(async () => Number(await page.getByTestId('kpi-events').getAttribute('data-value')))
      .toBe(EVENTS);
  }, 150_000);
});
