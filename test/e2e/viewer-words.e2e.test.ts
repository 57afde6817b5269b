// What the screens say, in real Chromium against `kvscope serve`: the Overview's tiles read with
// thousands separators as the Insights' figures do, a relative clock below zero reads "t-1.0s"
// on the axes (never "t+-1.0s"), Space is "Pause" on Events as on the Overview and Chains (the
// word Grafana's live views use), and a long live title is not cut at 1024 px.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  openApp,
  setTheme,
  showView,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { closedPort } from '../metrics/http-text-server';
import { sessionBytes } from '../support/session-bytes';

/** Events in the session: past 1,000, so its tiles need a separator. */
const EVENTS = 1_500;

const ws = useE2eWorkspace('viewer-words');
let pages = 0;

/** A session on a relative clock from -60 s to about +60 s: one stored block per event. */
async function relativeSession(): Promise<string> {
  const events = Array.from({ length: EVENTS }, (_, i) => ({
    ...stored('engine', -60 + (120 * i) / EVENTS, [String(1000 + i)]),
    seq: i,
  }));
  const sources = [{ id: 'engine', name: 'engine', endpoint: '' }];
  return ws.file('relative-clock.kvscope.jsonl.gz', sessionBytes(sources, events));
}

/** A page on a serve started with these arguments, at this width. */
async function pageOn(extra: string[], width: number): Promise<Page> {
  const serve = await ws.serve(`data-${(pages += 1)}`, extra);
  return openApp(ws.browser, serve.url, { width, height: 800 });
}

describe('what the screens say', () => {
  it('reads tiles with separators, a clock below zero as t-, and Pause on Events', async () => {
    const page = await pageOn(['--open', await relativeSession()], 1280);
    await page.getByTestId('badge-session').waitFor({ timeout: 60_000 });
    const events = page.getByTestId('kpi-events');
    await expect.poll(() => events.getAttribute('data-value'), { timeout: 30_000 }).toBe('1500');
    expect(await events.textContent()).toBe('1,500');
    expect(await page.getByTestId('kpi-stored-blocks').textContent()).toBe('1,500');

    // The charts' time axes: ticks on both sides of the clock's zero, each with one sign.
    const texts = page.locator('.chart-body svg text');
    const offsets = async () =>
      (await texts.allTextContents()).filter((l) => /^t[+-]/.test(l.trim()));
    await expect.poll(async () => (await offsets()).length, { timeout: 20_000 }).toBeGreaterThan(2);
    const labels = await offsets();
    expect(labels.filter((l) => l.includes('t+-'))).toEqual([]);
    expect(labels.some((l) => /^t-\d/.test(l))).toBe(true);
    expect(labels.some((l) => /^t\+\d/.test(l))).toBe(true);

    // Space on Events is the same "Pause" as on the Overview and Chains.
    await showView(page, 'Events');
    const pause = page.getByTestId('event-freeze');
    await expect.poll(() => pause.textContent()).toBe('❚❚ Pause');
    // The tab just clicked keeps the focus: Space there is the view's pause all the same.
    await page.keyboard.press('Space');
    await expect.poll(() => pause.textContent()).toBe('▶ Resume');
    expect(page.url()).toMatch(/#events$/);
    // The count shows '…' until the page of events is answered (a request of its own).
    await expect.poll(() => page.getByTestId('event-count').textContent()).toContain('(paused)');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'words-events-paused.png') });
    // Ctrl+3 from the focused Events tab: the focus follows to the Chains tab, and Space pauses
    // Chains (left on the Events tab, Space pressed it and went back to Events).
    await page.keyboard.press('Control+3');
    await page.getByRole('tab', { name: 'Chains', selected: true }).waitFor();
    expect(await page.getByTestId('chain-pause').textContent()).toBe('❚❚ Pause');
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('chain-pause').textContent()).toBe('▶ Resume');
    expect(page.url()).toMatch(/#chains$/);
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('chain-pause').textContent()).toBe('❚❚ Pause');
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await showView(page, 'Overview');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `words-overview-${theme}.png`) });
    }
    await page.context().close();
  }, 120_000);

  for (const width of [1024, 1440]) {
    it(`shows a long live title whole at ${width} px`, async () => {
      const endpoint = `tcp://127.0.0.1:${await closedPort()}`;
      const page = await pageOn(['--demo', '--endpoint', endpoint], width);
      const title = page.getByTestId('view-title');
      await expect
        .poll(() => title.textContent(), { timeout: 20_000 })
        .toMatch(new RegExp(`^Live: ${endpoint.replace(/\./g, '\\.')} and the demo stream`));
      await page.getByTestId('badge-demo').waitFor();
      // Cut, the title's text is wider than its box (an ellipsis); whole, it fits.
      const fits = () => title.evaluate((el) => el.scrollWidth <= el.clientWidth);
      expect(await fits()).toBe(true);
      for (const theme of ['light', 'dark'] as const) {
        await setTheme(page, theme);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `words-header-${width}-${theme}.png`),
        });
      }
      await page.context().close();
    }, 120_000);
  }
});
