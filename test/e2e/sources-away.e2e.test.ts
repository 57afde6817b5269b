// Sources that go away, in Chromium against `kvscope serve`: a disconnected source stays with its
// last state shown as stale, a removed one leaves every total, a restart counts from empty.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import {
  SCREENSHOT_DIR,
  kpi,
  openApp,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { warmUp } from '../support/e2e-sim';
import { eventually } from '../support/wait-for';

const NAME = 'engine-away';

const ws = useE2eWorkspace('away');
let serve: ServeProcess;
let page: Page;
let sim: SimPublisher;

beforeAll(async () => {
  sim = await SimPublisher.start({
    format: 'array',
    hash: 'int',
    rate: 0,
    seed: 23,
    clearEvery: 0,
  });
  serve = await ws.serve('data');
  page = await openApp(ws.browser, serve.url);
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

const simResident = (): number =>
  Object.values(sim.stats().ranks[0]?.resident ?? {}).reduce((a, b) => a + b, 0);

const shot = (name: string) =>
  page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

async function residentSettlesAt(expected: () => number): Promise<void> {
  await showView(page, 'Overview');
  await eventually(
    () => kpi(page, 'resident-blocks'),
    (v) => v === expected(),
    `resident to equal ${expected()}`,
  );
}

describe('sources that go away, in the browser', () => {
  it('shows a connected source in the status strip, with its age', async () => {
    await showView(page, 'Connections');
    // The built-in demo starts when nothing else is configured: remove it first (it leaves the totals).
    const demo = page.getByRole('switch', { name: 'Demo engine' });
    await demo.click();
    await expect.poll(() => demo.isChecked()).toBe(false);
    await showView(page, 'Overview');
    await eventually(
      () => kpi(page, 'stored-blocks'),
      (v) => v === 0,
      'the demo to leave',
    );
    await showView(page, 'Connections');
    await page.getByTestId('profile-add').click();
    await page.getByRole('textbox', { name: /^Name/ }).fill(NAME);
    await page.getByRole('textbox', { name: /^Endpoint/ }).fill(sim.ranks[0]?.pubEndpoint ?? '');
    await page.getByTestId('profile-save').click();
    const item = page.getByRole('listitem').filter({ hasText: NAME });
    // A new connection connects when added: no Connect click.
    await item.getByRole('button', { name: 'Disconnect' }).waitFor();
    await warmUp(page, sim, NAME);
    await sim.publish(150);
    // The source joined mid-stream: what it holds is the truth after its first batch, which the
    // warm-up made the start (clearEvery 0, and every batch after it arrived).
    await showView(page, 'Overview');
    const strip = page.getByTestId('status-strip');
    await strip.getByText(NAME).waitFor({ timeout: 10_000 });
    await expect.poll(() => strip.locator('.state').first().textContent()).toBe('connected');
    expect(await page.locator('[data-testid^="status-age-"]').first().textContent()).toMatch(
      /last message/,
    );
  }, 60_000);

  it('keeps a disconnected source, its resident blocks shown as stale', async () => {
    // Every batch published so far applied first: a figure read while the last ones were still
    // arriving (2,058 of 2,162 once under load) is not what the stale count keeps.
    await residentSettlesAt(simResident);
    const before = await kpi(page, 'resident-blocks');
    expect(before).toBeGreaterThan(0);
    await showView(page, 'Connections');
    await page
      .getByRole('listitem')
      .filter({ hasText: NAME })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await showView(page, 'Overview');
    const stale = page.getByTestId('kpi-resident-stale');
    await stale.waitFor({ timeout: 10_000 });
    expect(Number(await stale.getAttribute('data-value'))).toBe(before);
    expect(await kpi(page, 'resident-blocks')).toBe(before);
    expect(await page.getByTestId('status-strip').textContent()).toMatch(/disconnected.*stale/);
    await shot('overview-stale-source');
  }, 60_000);

  it('takes a removed source out of every total and every legend', async () => {
    // Before: the residency chart draws the source's medium.
    await showView(page, 'Overview');
    const resident = page.getByTestId('chart-resident');
    await eventually(
      () => resident.locator('.legend-item').allTextContents(),
      (l) => l.some((t) => t.startsWith('resident')),
      "the residency chart to draw the source's medium",
    );
    await showView(page, 'Connections');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Remove ${NAME}` }).click();
    await showView(page, 'Overview');
    await eventually(
      () => kpi(page, 'resident-blocks'),
      (v) => v === 0,
      'resident to fall to 0',
    );
    expect(await kpi(page, 'stored-blocks')).toBe(0);
    expect(await page.getByTestId('status-strip').count()).toBe(0);
    expect(await page.getByTestId('kpi-resident-stale').count()).toBe(0);
    // Nor on the charts: no medium of it in the residency legend, no marker of it on either chart.
    await eventually(
      () => resident.locator('.legend-item').count(),
      (n) => n === 0,
      'the residency legend to drop the removed source',
    );
    expect(await page.locator('[data-testid^="markers-"]').count()).toBe(0);
    // Its only connection removed, the live view waits for nothing, and says so.
    expect(await page.getByTestId('chart-resident-empty').textContent()).toMatch(
      /^Nothing is connected: add a connection/,
    );
    await shot('overview-source-removed');
  }, 60_000);

  it('counts a restarted engine from empty: resident equals the new stream alone', async () => {
    await showView(page, 'Connections');
    await page.getByTestId('profile-add').click();
    await page.getByRole('textbox', { name: /^Name/ }).fill(`${NAME}-2`);
    await page.getByRole('textbox', { name: /^Endpoint/ }).fill(sim.ranks[0]?.pubEndpoint ?? '');
    await page.getByTestId('profile-save').click();
    await page
      .getByRole('listitem')
      .filter({ hasText: `${NAME}-2` })
      .getByRole('button', { name: 'Disconnect' })
      .waitFor();
    // A fresh engine process: the sim starts again at seq 0 with empty caches.
    sim.restart();
    await warmUp(page, sim, `${NAME}-2`);
    await sim.publish(200);
    sim.restart();
    await sim.publish(60);
    await residentSettlesAt(simResident);
    expect(simResident()).toBeGreaterThan(0);
    await shot('overview-after-restart');
  }, 90_000);

  it('drops a Source filter on a source removed elsewhere: all sources again, and says why', async () => {
    const chosen = `${NAME}-2`;
    // Another source to be shown once the chosen one goes: the demo engine again.
    await showView(page, 'Connections');
    const demo = page.getByRole('switch', { name: 'Demo engine' });
    await demo.click();
    await expect.poll(() => demo.isChecked()).toBe(true);
    // Events filtered on it here, Chains in a second window, the removal from a third.
    const chainsPage = await openApp(ws.browser, serve.url);
    const other = await openApp(ws.browser, serve.url);
    try {
      await showView(chainsPage, 'Chains');
      const chainSource = chainsPage.getByTestId('chain-source');
      await chainSource.selectOption({ label: chosen });
      await showView(page, 'Events');
      const filter = page.getByTestId('event-source');
      await filter.selectOption({ label: chosen });
      const countOf = async (p: Page, id: string): Promise<number> =>
        Number(
          ((await p.getByTestId(id).textContent()) ?? '')
            .replace(/[^\d,].*$/s, '')
            .replace(/,/g, '') || 0,
        );
      await eventually(
        () => countOf(page, 'event-count'),
        (n) => n > 0,
        `events of ${chosen}`,
      );
      await showView(other, 'Connections');
      other.once('dialog', (d) => void d.accept());
      await other.getByRole('button', { name: `Remove ${chosen}` }).click();
      // The demo's events, not an empty list filtered on the source gone under "all sources".
      await eventually(
        () => page.getByTestId('notices').textContent(),
        (t) => (t ?? '').includes(`${chosen} is no longer among the sources: showing all sources`),
        'the notice of the removal',
      );
      expect(await filter.inputValue()).toBe('');
      await eventually(
        () => countOf(page, 'event-count'),
        (n) => n > 0,
        "the demo's events under all sources",
      );
      await shot('events-source-removed');
      expect(await chainSource.inputValue()).toBe('');
      await eventually(
        () => countOf(chainsPage, 'chain-count'),
        (n) => n > 0,
        "the demo's chains under all sources",
      );
      expect(await chainsPage.getByTestId('notices').textContent()).toContain(
        `${chosen} is no longer among the sources: showing all sources`,
      );
    } finally {
      await chainsPage.close();
      await other.close();
    }
  }, 90_000);
});
