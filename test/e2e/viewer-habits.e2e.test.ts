// The habits of a good viewer, in real Chromium against `kvscope serve` while the demo stream
// moves: copy a hash (a button, Ctrl+C on a focused row), the event detail pane, exports with the
// view's filter, the keyboard (Space, ?, Ctrl+O, Ctrl+S, Ctrl+N), back and forward between views,
// a new connection that connects when added, with its engine metrics URL field, and its form
// reached and left by the keyboard (its first field focused, Escape closes it), and two
// connections of one name told apart.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChooser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CSV_COLUMNS } from '../../electron/export/event-export';
import { ellipsizeMiddle } from '../../renderer/lib/format';
import { SimPublisher } from '../../electron/sim/publisher';
import {
  SCREENSHOT_DIR,
  clickRow,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { sourceCard } from '../support/e2e-sim';
import { eventually } from '../support/wait-for';

const ws = useE2eWorkspace('habits');
let serve: ServeProcess;
let page: Page;
const choosers: FileChooser[] = [];

beforeAll(async () => {
  serve = await ws.serve('data', ['--demo']);
  const context = await ws.browser.newContext({
    viewport: { width: 1024, height: 800 },
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(serve.url).origin,
  });
  page = await context.newPage();
  // Taken from the start: the chooser is intercepted only once a listener is in place.
  page.on('filechooser', (c) => choosers.push(c));
  await page.goto(`${serve.url}#events`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20_000 });
}, 120_000);

/** The data-testid of the element with the focus. */
const focusedTestId = () =>
  page.evaluate<string | null>("document.activeElement?.getAttribute('data-testid') ?? null");
const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, name) });
const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');

/** Events the service has taken so far (the page asks over its own bridge). */
const serviceNewest = () =>
  page.evaluate<number>(
    'window.kvscope.queryEvents({ offset: 0, limit: 1 }).then((p) => p.newest)',
  );

/** The block hashes of the event shown in the detail pane. */
async function detailHashes(): Promise<string[]> {
  return page
    .getByTestId('event-detail-hashes')
    .locator('.hash')
    .evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
}

/** Reads the text of a download started by `start`. */
async function download(start: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download'), start()]);
  const file = await d.path();
  return { name: d.suggestedFilename(), text: await readFile(file, 'utf8') };
}

describe('the habits of a good viewer', () => {
  it('shows every redacted field of an event in a side pane, and copies its hashes', async () => {
    await page.getByTestId('event-type-BlockRemoved').uncheck();
    await page.getByTestId('event-type-AllBlocksCleared').uncheck();
    // The rows drawn before the filter applies may be a removal's: clicked once every row drawn
    // is a store, whose detail is read below.
    await expect
      .poll(() =>
        page
          .getByTestId('event-row')
          .evaluateAll(
            (rows) => rows.length > 3 && rows.every((r) => r.textContent?.includes('BlockStored')),
          ),
      )
      .toBe(true);
    await clickRow(page.getByTestId('event-row').nth(2));
    const pane = page.getByTestId('event-detail');
    await pane.waitFor();
    expect(await pane.locator('h2').textContent()).toBe('BlockStored');
    // The list moves on under it: the row chosen stays marked, and the pane shows that row.
    const chosen = page.locator('[data-testid=event-row][aria-selected=true]');
    expect(await page.getByTestId('event-detail-seq').textContent()).toBe(
      await chosen.locator('[role=cell]').nth(2).textContent(),
    );
    expect(await page.getByTestId('event-detail-source').textContent()).toMatch(
      /^Demo \(built-in simulator\)/,
    );
    expect(await page.getByTestId('event-detail-time').textContent()).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
    );
    const text = (await pane.innerText()).toLowerCase();
    for (const field of ['medium', 'blocks', 'tokens', 'parent']) expect(text).toContain(field);
    expect(text).not.toContain('token_ids');
    const hashes = await detailHashes();
    expect(hashes.length).toBeGreaterThan(0);

    // Arrow down moves the focus to the next row and Enter shows it; arrow up and Enter go back.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(detailHashes).not.toEqual(hashes);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect.poll(detailHashes).toEqual(hashes);

    // The focus is on the row clicked: Ctrl+C copies its hashes while new events keep coming.
    const before = await serviceNewest();
    await page.keyboard.press('Control+c');
    await page.getByTestId('copy-cue').waitFor();
    expect(await clipboard()).toBe(hashes.join('\n'));
    await eventually(serviceNewest, (n) => n > before, 'the stream to move on');
    await shot('habits-detail-1024.png');

    // The button beside a hash copies that one hash. The cue shows for 1.6 s after each copy,
    // and Ctrl+C's may still be up (the same text for a one-hash event): the button's cue is
    // read once that one is gone, and the clipboard once the cue says the copy is done.
    const cue = page.getByTestId('copy-cue');
    await cue.waitFor({ state: 'detached' });
    await pane.getByTestId('event-detail-hashes').getByTestId('copy-hash').first().click();
    await cue.filter({ hasText: `Copied ${ellipsizeMiddle(hashes[0] ?? '', 24)}` }).waitFor();
    expect(await clipboard()).toBe(hashes[0]);

    // Escape (the focus in the pane) closes it.
    await page.keyboard.press('Escape');
    await pane.waitFor({ state: 'detached' });
  }, 60_000);

  it("exports the events with the view's filter as CSV, and the chains as JSON", async () => {
    // Only BlockStored is ticked (the test before): the CSV holds BlockStored events only.
    const csv = await download(() => page.getByTestId('export-events-csv').click());
    expect(csv.name).toMatch(/^kvscope-events-.*\.csv$/);
    const [head, ...rows] = csv.text.trimEnd().split('\n');
    expect(head?.split(',')).toEqual([...EVENT_CSV_COLUMNS]);
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows.slice(0, 200)) {
      const cells = r.split(',');
      expect(cells[7]).toBe('BlockStored');
      expect(cells[0]).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(cells[2]).toMatch(/^"?Demo \(built-in simulator\)/);
    }
    await page.getByTestId('event-type-BlockRemoved').check();
    await page.getByTestId('event-type-AllBlocksCleared').check();

    await showView(page, 'Chains');
    await page.getByTestId('chain-row').first().waitFor();
    const json = await download(() => page.getByTestId('export-chains-json').click());
    const doc = JSON.parse(json.text) as { format: string; chains: { chain_id: string }[] };
    expect(doc.format).toBe('kvscope-chains');
    expect(doc.chains.length).toBeGreaterThan(0);
    expect(doc.chains[0]?.chain_id).toMatch(/^\d+$/);
  }, 60_000);

  it('pauses with Space, lists the shortcuts with ?, and goes back and forward between views', async () => {
    // Chains is shown (the test before); Space pauses it unless the focus is in a field.
    await page.locator('body').click({ position: { x: 2, y: 790 } });
    await page.keyboard.press('Space');
    await expect
      .poll(() => page.getByTestId('chain-pause').getAttribute('aria-pressed'))
      .toBe('true');
    await page.getByTestId('chain-search').click();
    await page.keyboard.press('Space');
    expect(await page.getByTestId('chain-pause').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('chain-search').inputValue()).toBe(' ');
    await page.getByTestId('chain-search').fill('');
    await page.locator('body').click({ position: { x: 2, y: 790 } });
    await page.keyboard.press('Space');
    await expect
      .poll(() => page.getByTestId('chain-pause').getAttribute('aria-pressed'))
      .toBe('false');

    await page.keyboard.press('?');
    const dialog = page.getByTestId('shortcuts-dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('Ctrl+O');
    await shot('habits-shortcuts-1024.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Ctrl+1 shows the Overview; Space pauses its charts; back returns to Chains, forward again.
    await page.keyboard.press('Control+1');
    await page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
    await page.keyboard.press('Space');
    await expect
      .poll(() => page.getByTestId('pause-charts').getAttribute('aria-pressed'))
      .toBe('true');
    await page.keyboard.press('Space');
    expect(page.url()).toMatch(/#overview$/);
    await page.goBack();
    await page.getByRole('tab', { name: 'Chains', selected: true }).waitFor();
    expect(page.url()).toMatch(/#chains$/);
    await page.goForward();
    await page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
  }, 60_000);

  it('opens the file picker with Ctrl+O and saves the session with Ctrl+S', async () => {
    await page.keyboard.press('Control+o');
    await eventually(
      async () => choosers.length,
      (n) => n === 1,
      'the file picker to open',
    );
    expect(choosers[0]?.isMultiple()).toBe(false);
    const saved = await download(() => page.keyboard.press('Control+s'));
    expect(saved.name).toMatch(/\.kvscope\.jsonl\.gz$/);
  }, 60_000);

  it('connects a new connection when it is added, and checks its engine metrics URL', async () => {
    // Port 0: a port found free and bound later could be taken in between by another test.
    const sim = await SimPublisher.start({ format: 'map', hash: 'int', rate: 20, seed: 3 });
    try {
      await showView(page, 'Connections');
      await page.getByTestId('profile-add').click();
      await page.getByTestId('profile-name').fill('engine-b');
      await page.getByTestId('profile-endpoint').fill(sim.ranks[0]?.pubEndpoint ?? '');
      await page.getByTestId('profile-metrics-url').fill('not a url');
      await page.getByTestId('profile-save').click();
      expect(await page.getByTestId('profile-error-metricsUrl').textContent()).toContain(
        'http://127.0.0.1:8000/metrics',
      );
      await shot('habits-form-1024.png');
      await page.getByTestId('profile-metrics-url').fill('');
      await page.getByTestId('profile-save').click();
      // No Connect click: the source comes up and receives.
      await eventually(
        () => sourceCard(page, 'engine-b').locator('.state').textContent(),
        (s) => s === 'connected',
        'the new connection to connect',
      );
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('opens the connection form at its first field from the keyboard, and Escape closes it', async () => {
    await showView(page, 'Connections');
    const add = page.getByTestId('profile-add');
    await add.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('profile-form').waitFor();
    // The focus is in the form, not on the page: typing fills its name.
    await page.keyboard.type('typed-name');
    expect(await page.getByTestId('profile-name').inputValue()).toBe('typed-name');
    await page.keyboard.press('Tab');
    expect(await focusedTestId()).toBe('profile-endpoint');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('profile-form').count()).toBe(0);
    // Back where it was opened from, nothing saved.
    await expect.poll(() => focusedTestId()).toBe('profile-add');
    expect(await page.getByText('typed-name').count()).toBe(0);
  }, 30_000);

  it('tells two connections of one name apart in the status strip and when removing one', async () => {
    const sims = await Promise.all(
      [7, 8].map((seed) => SimPublisher.start({ format: 'map', hash: 'int', rate: 20, seed })),
    );
    try {
      await showView(page, 'Connections');
      for (const sim of sims) {
        await page.getByTestId('profile-add').click();
        await page.getByTestId('profile-name').fill('twin');
        await page.getByTestId('profile-endpoint').fill(sim.ranks[0]?.pubEndpoint ?? '');
        await page.getByTestId('profile-save').click();
        await page.getByTestId('profile-form').waitFor({ state: 'detached' });
      }
      await showView(page, 'Overview');
      const names = page.getByTestId('status-strip').locator('strong');
      await expect
        .poll(async () => (await names.allTextContents()).filter((n) => n.startsWith('twin')))
        .toEqual([
          expect.stringMatching(/^twin \(\w+\)$/),
          expect.stringMatching(/^twin \(\w+\)$/),
        ]);
      const twins = (await names.allTextContents()).filter((n) => n.startsWith('twin'));
      expect(twins[0]).not.toBe(twins[1]);
      // The rate chart's legend heads each one's series with the same labels, not one "twin".
      const groups = page.locator('.legend-group');
      await expect
        .poll(async () => (await groups.allTextContents()).filter((n) => n.startsWith('twin')))
        .toEqual(twins.map((t) => `${t}:`));
      await shot('habits-twin-names.png');

      await showView(page, 'Connections');
      const said: string[] = [];
      page.once('dialog', (d) => {
        said.push(d.message());
        void d.dismiss();
      });
      await page.getByRole('button', { name: 'Remove twin' }).first().click();
      await expect.poll(() => said.length).toBe(1);
      expect(said[0]).toMatch(/^Remove the connection “twin” \(tcp:\/\/127\.0\.0\.1:\d+\)\?/);
    } finally {
      await Promise.all(sims.map((s) => s.close()));
    }
  }, 60_000);
});
