// What the app says is live, in real Chromium against `kvscope serve`: the header names a real
// engine that runs beside the demo (never "demo stream" alone), every data-parallel rank is
// labelled in the event log (dp0 as well as dp1), and a file opened at start is not joined by a
// demo stream nobody asked for.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import { stored } from '../model/helpers';
import { SCREENSHOT_DIR, openApp, showView, useE2eWorkspace } from '../support/e2e-harness';
import { sessionBytes } from '../support/session-bytes';

const ws = useE2eWorkspace('what-is-live');
let engine: SimPublisher;

beforeAll(async () => {
  engine = await SimPublisher.start({ port: 0, rate: 20, seed: 7, format: 'map', hash: 'int' });
}, 120_000);

afterAll(async () => {
  await engine?.close();
});

/** Screenshots of the page at 1024 and 1440 px wide. */
async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1024, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`) });
  }
}

/** The source cells of the event rows drawn. */
function sourceCells(page: Page): Promise<string[]> {
  return page
    .getByTestId('event-row')
    .evaluateAll((rows) =>
      rows.map((r) => r.querySelector('[role=cell]:nth-child(2)')?.textContent ?? ''),
    );
}

describe('what is live, in Chromium', () => {
  it('names a real engine that runs beside the demo in the header, and labels rank 0 dp0 as rank 1 dp1', async () => {
    const endpoint = engine.ranks[0]?.pubEndpoint ?? '';
    const s = await ws.serve('beside', ['--demo', '--endpoint', endpoint]);
    const page = await openApp(ws.browser, s.url);
    const title = page.getByTestId('view-title');
    await expect
      .poll(() => title.getAttribute('title'))
      .toBe(`Live: ${endpoint} and the demo stream`);
    expect(await page.getByTestId('badge-demo').count()).toBe(1);
    await shots(page, 'live-beside-demo');

    await showView(page, 'Events');
    const filter = page.getByTestId('event-source');
    // The demo's two ranks: its rank 0 publishes data_parallel_rank 0 in every batch.
    for (const [id, label] of [
      ['demo', 'dp0'],
      ['demo#1', 'dp1'],
    ] as const) {
      await filter.selectOption(id);
      await expect
        .poll(() => sourceCells(page), { timeout: 20_000 })
        .toSatisfy((cells: string[]) => cells.length > 0 && cells.every((c) => c.endsWith(label)));
    }
    await shots(page, 'events-dp0-rank');
    await page.context().close();
  }, 120_000);

  it('says no connection is live once the demo is disconnected, and the demo stream again on Connect', async () => {
    const s = await ws.serve('demo-off', ['--demo']);
    const page = await openApp(ws.browser, s.url);
    const title = page.getByTestId('view-title');
    await expect.poll(() => title.getAttribute('title')).toBe('Live: demo stream');
    await showView(page, 'Connections');
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await expect.poll(() => title.getAttribute('title')).toBe('Live: no connection');
    // The simulator still runs: its switch and badge stay on, only its stream is not live.
    expect(await page.getByTestId('badge-demo').count()).toBe(1);
    expect(await page.getByRole('switch', { name: 'Demo engine' }).isChecked()).toBe(true);
    await shots(page, 'demo-disconnected');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => title.getAttribute('title')).toBe('Live: demo stream');
    await page.context().close();
  }, 120_000);

  it('opens a file given with --open without starting a demo stream beside it', async () => {
    const file = path.join(ws.dir, 'opened.kvscope.jsonl.gz');
    const source = { id: 'gpu-a', name: 'gpu-a', endpoint: 'tcp://10.0.0.1:5557' };
    const events = Array.from({ length: 20 }, (_, i) => ({
      ...stored('gpu-a', 1000 + i, [`${i}1`, `${i}2`]),
      seq: i,
    }));
    await writeFile(file, sessionBytes([source], events));
    const s = await ws.serve('open', ['--open', file]);
    expect(s.stdout()).not.toMatch(/demo/i);
    const page = await openApp(ws.browser, s.url);
    const title = page.getByTestId('view-title');
    await expect.poll(() => title.getAttribute('title')).toBe('opened.kvscope.jsonl.gz');
    expect(await page.getByTestId('badge-demo').count()).toBe(0);
    // Back to live: nothing is connected, and it says so; no demo connection was made.
    await page.getByTestId('back-to-live').click();
    await expect.poll(() => title.getAttribute('title')).toBe('Live: no connection');
    expect(await page.getByTestId('badge-demo').count()).toBe(0);
    const profiles = await page.evaluate<string[]>(
      'window.kvscope.listProfiles().then((ps) => ps.map((p) => p.id))',
    );
    expect(profiles).toEqual([]);
    await expect
      .poll(() => page.getByTestId('chart-rates').textContent())
      .toContain('Nothing is connected: add a connection (or the demo engine) under Connections.');
    await shots(page, 'live-nothing-after-open');
    await page.context().close();
  }, 120_000);
});
