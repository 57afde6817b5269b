// The Events and Chains tables in a narrow window, in real Chromium against `kvscope serve --demo`:
// an 800 px browser window, or the event list beside an open event in the desktop's least window
// (1024 px), leaves out the columns the detail shows (an event's parent, then its seq; a chain's
// root) instead of scrolling sideways; a wide window shows every column. At 800 px an event's
// detail goes under the list, and a chain's block table leaves out its tokens and its times' counts.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  clickRow,
  openApp,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

const ws = useE2eWorkspace('narrow-tables');
let serve: ServeProcess;
let page: Page;

beforeAll(async () => {
  serve = await ws.serve('data', ['--demo']);
  page = await openApp(ws.browser, serve.url, { width: 800, height: 600 });
}, 60_000);

afterAll(async () => {
  await page?.context().close();
});

/** The column headers shown (not left out), and whether the table scrolls sideways. */
async function tableLayout(table: string): Promise<{ shown: string[]; sideways: boolean }> {
  return page.locator(table).evaluate((el) => ({
    shown: [...el.querySelectorAll('[role=columnheader]')]
      .filter((h) => h.getBoundingClientRect().width > 0)
      .map((h) => (h.textContent ?? '').replace(/[▲▼]/g, '').trim()),
    sideways: el.scrollWidth > el.clientWidth,
  }));
}

const EVENT_COLUMNS = ['Time', 'Source', 'Seq', 'Type', 'Block hashes', 'Parent', 'Medium'];
const CHAIN_COLUMNS = ['Leaf (chain id)', 'Root', 'Blocks', 'Tokens', 'Resident', 'Evicted'];
const BLOCK_COLUMNS = [
  '#',
  'Block hash',
  'State',
  'Medium',
  'Tokens',
  'Stores',
  'Stored at',
  'Removed at',
  'Last lifetime',
  'Held by',
];

describe('narrow tables', () => {
  it('leave out the parent, then the seq, of an event rather than scroll sideways', async () => {
    await showView(page, 'Events');
    await page.getByTestId('event-row').first().waitFor({ timeout: 20_000 });
    const narrow = await tableLayout('.event-table');
    expect(narrow.sideways).toBe(false);
    expect(narrow.shown).toEqual([...EVENT_COLUMNS.filter((c) => c !== 'Parent'), 'Details']);
    // Every row's cells line up with the headers shown.
    const cells = await page
      .getByTestId('event-row')
      .first()
      .locator('[role=cell]')
      .evaluateAll((els) => els.filter((c) => c.getBoundingClientRect().width > 0).length);
    expect(cells).toBe(narrow.shown.length);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'narrow-events-800.png') });

    // The desktop's least window with an event open beside the list: its seq is in the detail.
    await page.setViewportSize({ width: 1024, height: 700 });
    await clickRow(page.getByTestId('event-row').first());
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    const beside = await tableLayout('.event-table');
    expect(beside.sideways).toBe(false);
    expect(beside.shown).toEqual(['Time', 'Source', 'Type', 'Block hashes', 'Medium', 'Details']);
    await expect.poll(() => detail.textContent()).toMatch(/Seq\s*[\d,]+/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'narrow-events-detail-1024.png') });
    await page.getByRole('button', { name: 'Close the event detail' }).click();

    await page.setViewportSize({ width: 1280, height: 800 });
    const wide = await tableLayout('.event-table');
    expect(wide.sideways).toBe(false);
    expect(wide.shown).toEqual([...EVENT_COLUMNS, 'Details']);
    await page.setViewportSize({ width: 800, height: 600 });
  }, 60_000);

  it("put an event's detail under the list in an 800 px window, as wide as the list", async () => {
    await showView(page, 'Events');
    await clickRow(page.getByTestId('event-row').first());
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    const list = await tableLayout('.event-table');
    expect(list.sideways).toBe(false);
    const [table, pane] = await Promise.all(
      ['.event-table', '[data-testid=event-detail]'].map((s) =>
        page.locator(s).evaluate((el) => {
          const { top, bottom, width } = el.getBoundingClientRect();
          return { top, bottom, width };
        }),
      ),
    );
    expect(pane!.top).toBeGreaterThanOrEqual(table!.bottom);
    expect(pane!.width).toBeCloseTo(table!.width, 0);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'narrow-events-detail-800.png') });
    await page.getByRole('button', { name: 'Close the event detail' }).click();
  }, 60_000);

  it('leave out the root of a chain rather than scroll sideways', async () => {
    await showView(page, 'Chains');
    await page.getByTestId('chain-row').first().waitFor({ timeout: 20_000 });
    const narrow = await tableLayout('.chain-table');
    expect(narrow.sideways).toBe(false);
    expect(narrow.shown.slice(0, 5)).toEqual(CHAIN_COLUMNS.filter((c) => c !== 'Root'));
    expect(narrow.shown).toHaveLength(9);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'narrow-chains-800.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    const wide = await tableLayout('.chain-table');
    expect(wide.sideways).toBe(false);
    expect(wide.shown.slice(0, 6)).toEqual(CHAIN_COLUMNS);
    expect(wide.shown).toHaveLength(10);
    await page.setViewportSize({ width: 800, height: 600 });
  }, 60_000);

  it("leave out a chain's blocks' tokens and their times' counts rather than scroll sideways", async () => {
    await showView(page, 'Chains');
    await clickRow(page.getByTestId('chain-row').first());
    const detail = page.getByTestId('chain-detail');
    await detail.waitFor();
    await page.getByTestId('block-row').first().waitFor();
    const narrow = await tableLayout('.block-table');
    expect(narrow.sideways).toBe(false);
    expect(narrow.shown).toEqual(BLOCK_COLUMNS.filter((c) => c !== 'Tokens'));
    // The root block: the demo stores every chain's root again and again.
    const root = page.getByTestId('block-row').first().locator('[role=cell]');
    expect(Number((await root.nth(5).innerText()).replace(/,/g, ''))).toBeGreaterThan(1);
    expect(await root.nth(6).innerText()).toMatch(/^\d\d:\d\d:\d\d$/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'narrow-chain-detail-800.png') });

    await page.setViewportSize({ width: 1280, height: 800 });
    const wide = await tableLayout('.block-table');
    expect(wide.sideways).toBe(false);
    expect(wide.shown).toEqual(BLOCK_COLUMNS);
    expect(await root.nth(6).innerText()).toMatch(/^\d\d:\d\d:\d\d \(\+[\d,]+\)$/);
    await page.setViewportSize({ width: 800, height: 600 });
  }, 60_000);
});
