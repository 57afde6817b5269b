// The app in real Chromium against `kvscope serve`: charts, connecting an engine through the UI
// with exact totals, the chain browser and hash search, and screenshots of every view.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import {
  SCREENSHOT_DIR,
  clickRow,
  kpis,
  openApp,
  setTheme,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { sourceCard, sourceStat, warmUp, waitForReceived } from '../support/e2e-sim';
import { RawTruth, type TruthTotals } from '../support/e2e-truth';

const MAIN_BATCHES = 300;
const SOURCE_NAME = 'e2e-engine';

const ws = useE2eWorkspace('app');
let serve: ServeProcess;
let page: Page;
let sim: SimPublisher;
let truth: RawTruth;
/** What KV Scope received, once test 2 has established it. */
let received: TruthTotals | null = null;

beforeAll(async () => {
  serve = await ws.serve('data');
  page = await openApp(ws.browser, serve.url);
  sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 0, seed: 7, replay: true });
  truth = new RawTruth(sim);
}, 120_000);

afterAll(async () => {
  truth?.stop();
  await sim?.close();
});

function pathPoints(d: string | null): number {
  return (d?.match(/[LC]/g) ?? []).length + 1;
}

describe('kvscope serve in Chromium', () => {
  it('draws the rate chart from the demo stream and toggles a series from its legend', async () => {
    await showView(page, 'Overview');
    const chart = page.getByTestId('chart-rates');
    await expect
      .poll(
        async () =>
          pathPoints(await chart.locator('.recharts-line path').first().getAttribute('d')),
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toBeGreaterThanOrEqual(5);
    const lines = await chart.locator('.recharts-line').count();
    expect(lines).toBeGreaterThanOrEqual(1);
    const first = chart
      .getByRole('list', { name: /Series/ })
      .getByRole('button')
      .first();
    await expect.poll(() => first.getAttribute('aria-pressed')).toBe('true');
    await first.click();
    await expect.poll(() => first.getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => chart.locator('.recharts-line').count()).toBe(lines - 1);
    await first.click();
    await expect.poll(() => first.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => chart.locator('.recharts-line').count()).toBe(lines);
  }, 60_000);

  it('connects an engine added through the form and shows its exact totals', async () => {
    await showView(page, 'Connections');
    const demo = page.getByRole('switch', { name: 'Demo engine' });
    // A controlled switch: it turns off when the next update frame says so, not on the click.
    await demo.click();
    await expect.poll(() => demo.isChecked()).toBe(false);
    await expect
      .poll(() => page.getByRole('article', { name: /^Source Demo/ }).count(), { timeout: 20_000 })
      .toBe(0);
    await showView(page, 'Overview');
    const base = await kpis(page);

    await showView(page, 'Connections');
    await page.getByTestId('profile-add').click();
    await page.getByRole('textbox', { name: /^Name/ }).fill(SOURCE_NAME);
    await page.getByRole('textbox', { name: /^Endpoint/ }).fill(sim.ranks[0]?.pubEndpoint ?? '');
    await page
      .getByRole('textbox', { name: /^Replay endpoint/ })
      .fill(sim.ranks[0]?.replayEndpoint ?? '');
    await page.getByTestId('profile-save').click();
    const item = page.getByRole('listitem').filter({ hasText: SOURCE_NAME });
    // Its line names the replay endpoint, not only that there is one ("· replay").
    expect(await item.textContent()).toContain(`· replay ${sim.ranks[0]?.replayEndpoint ?? ''}`);
    // A new connection connects when added: no Connect click.
    await item.getByRole('button', { name: 'Disconnect' }).waitFor();

    await warmUp(page, sim, SOURCE_NAME);
    await sim.publish(MAIN_BATCHES);
    // The batches received are the last `messages` ones published, with no gap.
    received = await waitForReceived(page, truth, SOURCE_NAME, base, MAIN_BATCHES);
    await showView(page, 'Connections');
    expect(await sourceStat(sourceCard(page, SOURCE_NAME), 'undecoded')).toBe(0);
    await showView(page, 'Overview');
    const k = await kpis(page);
    expect(k['stored-blocks']).toBe(base['stored-blocks'] + received.storedBlocks);
    expect(k['removed-blocks']).toBe(base['removed-blocks'] + received.removedBlocks);
    expect(k['resident-blocks']).toBe(base['resident-blocks'] + received.resident);
    expect(k.gaps).toBe(base.gaps);
    expect(received.storedBlocks).toBeGreaterThan(0);
    expect(received.removedBlocks).toBeGreaterThan(0);
  }, 120_000);

  it('lists chains, opens one root first, and finds a chain by a full hash and a prefix', async () => {
    const t = received;
    expect(t, 'the connect test must run first').not.toBeNull();
    if (!t) return;
    await showView(page, 'Chains');
    await page.getByTestId('chain-row').first().waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('chain-row').count()).toBeGreaterThan(0);

    // A resident hash of our source, a few blocks deep so its chain has an order to check, and
    // shallow enough that its row is among those the virtualized list draws.
    const depth = (h: string) => {
      let n = 0;
      for (let p: string | null | undefined = h; p != null; p = t.parents.get(p)) n++;
      return n;
    };
    const target =
      [...t.residentHashes].find((h) => depth(h) >= 3 && depth(h) <= 10) ??
      [...t.residentHashes].find((h) => depth(h) >= 2) ??
      '';
    expect(depth(target)).toBeGreaterThan(1);

    for (const query of [target, target.slice(0, 12)]) {
      const search = page.getByTestId('chain-search');
      await search.fill(query);
      const matches = page.getByTestId('hash-matches');
      const hit = matches
        .getByRole('listitem')
        .filter({ has: page.locator(`[title="${target}"]`) });
      await hit.waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.getByTestId('chain-row').count(), { timeout: 20_000 })
        .toBeGreaterThan(0);
      await hit
        .getByRole('button', { name: /^chain / })
        .first()
        .click();
      const detail = page.getByTestId('chain-detail');
      await detail.waitFor({ timeout: 20_000 });
      await detail.getByTestId('block-row').first().waitFor();
      // Its head names the list's figure as the list does ("Recomputed"), not "restores".
      expect(await detail.locator('.detail-head').textContent()).toMatch(/\d recomputed · root/);
      const hashes = await detail
        .getByTestId('block-row')
        .evaluateAll((rows) =>
          rows.map(
            (r) => r.querySelector('[role=cell]:nth-child(2) .hash')?.getAttribute('title') ?? '',
          ),
        );
      expect(hashes).toContain(target);
      // Root first: each block's parent is the block before it, as published.
      expect(t.parents.get(hashes[0] ?? '') ?? null).toBeNull();
      for (let i = 1; i < hashes.length; i++)
        expect(t.parents.get(hashes[i] ?? '')).toBe(hashes[i - 1]);
      const numbers = await detail
        .getByTestId('block-row')
        .evaluateAll((rows) =>
          rows.map((r) => Number(r.querySelector('[role=cell]')?.textContent)),
        );
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      await detail.getByRole('button', { name: 'Close the chain detail' }).click();
      // The focus goes back to the list, not to the page.
      await expect
        .poll(() => page.evaluate<string | null>('document.activeElement?.getAttribute("role")'))
        .toBe('row');
    }
    await page.getByTestId('chain-search').fill('');
  }, 90_000);

  it('draws a newly chosen time range while the charts are paused', async () => {
    expect(received, 'the connect test must run first').not.toBeNull();
    await showView(page, 'Overview');
    const chart = page.getByTestId('chart-rates');
    await chart.locator('.recharts-line path').first().waitFor({ timeout: 20_000 });
    await page.getByTestId('pause-charts').click();
    await expect
      .poll(() => page.getByTestId('pause-charts').getAttribute('aria-pressed'))
      .toBe('true');
    await page.getByTestId('range-all').click();
    await expect
      .poll(() => page.getByTestId('range-all').getAttribute('aria-pressed'))
      .toBe('true');
    // The new range is fetched once (not left at "Loading…" until the charts resume).
    await expect
      .poll(() => chart.locator('.recharts-line path').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    expect(await page.getByTestId('chart-rates-empty').count()).toBe(0);
    await page.getByTestId('pause-charts').click();
  }, 60_000);

  it('answers a change of filter in a frozen event log, and stays frozen', async () => {
    expect(received, 'the connect test must run first').not.toBeNull();
    await showView(page, 'Events');
    const count = page.getByTestId('event-count');
    // NaN while the count is not known ("…"), so a poll waits for a real number.
    const shown = async () => {
      const m = /^([\d,]+) events?/.exec((await count.textContent()) ?? '');
      return m?.[1] ? Number(m[1].replace(/,/g, '')) : NaN;
    };
    await expect.poll(shown, { timeout: 20_000 }).toBeGreaterThan(0);
    const all = await shown();
    await page.getByTestId('event-freeze').click();
    await expect.poll(() => count.textContent()).toContain('(paused)');
    // No new events arrive now (the demo is off, the simulator idle): fewer types, fewer events.
    await page.getByTestId('event-type-BlockRemoved').uncheck();
    await expect.poll(shown, { timeout: 20_000 }).toBeLessThan(all);
    expect(await shown()).toBeGreaterThan(0);
    expect(await count.textContent()).toContain('(paused)');
    await page.getByTestId('event-freeze').click();
  }, 60_000);

  it('draws every view in a light and a dark theme, with a screenshot of each', async () => {
    const backgrounds = new Map<string, string>();
    for (const theme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await setTheme(page, theme);
      // A string: this file type-checks without the DOM library.
      backgrounds.set(
        theme,
        await page.evaluate<string>('getComputedStyle(document.body).backgroundColor'),
      );
      await showView(page, 'Overview');
      await page.getByTestId('chart-rates').locator('.recharts-line path').first().waitFor();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `overview-1280-${theme}.png`) });
      await showView(page, 'Chains');
      await clickRow(page.getByTestId('chain-row').first());
      await page
        .getByTestId('chain-detail')
        .getByTestId('block-row')
        .first()
        .waitFor({ timeout: 20_000 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `chains-detail-1280-${theme}.png`) });
      await showView(page, 'Events');
      await page.getByTestId('event-row').first().waitFor({ timeout: 20_000 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `events-1280-${theme}.png`) });
      await showView(page, 'Connections');
      await page.getByRole('article', { name: `Source ${SOURCE_NAME}` }).waitFor();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `connections-1280-${theme}.png`) });
      await page.setViewportSize({ width: 1024, height: 700 });
      await showView(page, 'Overview');
      await page.getByTestId('chart-rates').locator('.recharts-line path').first().waitFor();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `overview-1024-${theme}.png`) });
    }
    // The screenshots show two themes, not one twice.
    expect(backgrounds.get('dark')).not.toBe(backgrounds.get('light'));
  }, 90_000);
});
