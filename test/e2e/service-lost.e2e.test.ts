// When serve's service thread dies, the tab says why and what to do, not only "Disconnected": the
// real service worker thread (dist/service-host.cjs) and HTTP host, the real renderer in Chromium.
// The thread is made to throw in its message listener (an exception nothing catches).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost, type HttpHost } from '../../electron/serve/http-host';
import { startServiceWorker, type ServiceWorker } from '../../electron/serve/service-worker';
import { ROOT } from '../support/built-app';
import {
  SCREENSHOT_DIR,
  ensureBuilt,
  launchChromium,
  openApp,
  removeDir,
  tempDir,
} from '../support/e2e-harness';

let dataDir: string;
let worker: ServiceWorker;
let host: HttpHost;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  ensureBuilt();
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  dataDir = await tempDir('lost');
  worker = await startServiceWorker(path.join(ROOT, 'dist', 'service-host.cjs'), {
    dataDir,
    endpoints: [],
    demo: false,
    transport: 'websocket',
  });
  host = await startHttpHost({
    service: worker.link,
    rendererDir: path.join(ROOT, 'dist', 'renderer'),
    host: '127.0.0.1',
    port: 0,
    dataDir,
  });
  browser = await launchChromium();
  for (const width of [1024, 1440])
    pages.push(await openApp(browser, host.url, { width, height: 800 }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await worker?.close();
  if (dataDir) await removeDir(dataDir);
});

describe('a tab whose service thread died', () => {
  it('shows why in its banner, with what to do, and a tab opened after it is told too', async () => {
    const ended = new Promise<number>((resolve) => worker.thread.once('exit', resolve));
    worker.thread.postMessage(null);
    expect(await ended).toBe(1);
    for (const page of pages) {
      const banner = page.getByTestId('service-lost');
      await banner.waitFor({ timeout: 20_000 });
      const text = await banner.innerText();
      expect(text).toMatch(/kvscope serve has stopped: the KV Scope service thread stopped \(/);
      expect(text).toContain(`what it received is in the recordings of ${dataDir}`);
      expect(text).toMatch(/start kvscope serve again\. This page reconnects by itself/);
      // Only the reason: not the bare "Disconnected" banner beside it.
      expect(await page.getByTestId('link-down').count()).toBe(0);
      const width = page.viewportSize()?.width ?? 0;
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `service-lost-${width}.png`) });
    }
    // A reload reaches the host, still up, whose socket says why at once and closes.
    const late = pages[0]!;
    await late.reload();
    await late.getByTestId('service-lost').waitFor({ timeout: 20_000 });
    expect(await late.getByTestId('service-lost').innerText()).toContain(
      'start kvscope serve again',
    );
  });
});
