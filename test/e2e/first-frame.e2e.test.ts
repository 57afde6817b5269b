// What a reader does before the first update frame comes is kept when it comes. The views answer
// their questions (rows, a filter) before any frame, so on a busy machine a reader, or a test,
// can act first; the first frame used to start every view over, dropping the filter set and the
// row opened (CI once clicked a row and saw its detail never come). The frames are held back in
// the page's WebSocket until the reader has acted, then let through.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WsServerMessage } from '../../shared/ws-protocol';
import { clickRow, type ServeProcess, useE2eWorkspace } from '../support/e2e-harness';

const ws = useE2eWorkspace('first-frame');
let serve: ServeProcess;
let page: Page;
/** Frames held back; null once they flow. */
let held: string[] | null = [];
let release: () => void = () => {};

beforeAll(async () => {
  serve = await ws.serve('data', ['--demo']);
  page = await ws.browser.newPage({ viewport: { width: 1024, height: 800 } });
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    release = () => {
      const frames = held ?? [];
      held = null;
      for (const f of frames) ws.send(f);
    };
    server.onMessage((m) => {
      const text = typeof m === 'string' ? m : m.toString('utf8');
      const msg = JSON.parse(text) as WsServerMessage;
      if (held && 'push' in msg && msg.push === 'update') held.push(text);
      else ws.send(text);
    });
  });
}, 60_000);

describe('the first frame', () => {
  it('keeps the filter set and the row opened before it came', async () => {
    await page.goto(`${serve.url}#events`);
    await page.getByTestId('event-row').first().waitFor({ timeout: 20_000 });
    // The rows may come before the first frame is pushed: frames are being held once one is.
    await expect.poll(() => held?.length ?? 0).toBeGreaterThan(0);
    await page.getByTestId('event-type-BlockRemoved').uncheck();
    await clickRow(page.getByTestId('event-row').first());
    await page.getByTestId('event-detail').waitFor();

    release();
    // The first frame drawn names the view in the header, in the render that would start the
    // views over.
    await page.getByText('Live: demo stream').waitFor();
    expect(await page.getByTestId('event-detail').isVisible()).toBe(true);
    expect(await page.getByTestId('event-type-BlockRemoved').isChecked()).toBe(false);
  });
});
