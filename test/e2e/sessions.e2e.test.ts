// Sessions through the browser UI: save (a download), reopen (an upload, and `serve --open`),
// import a seed-script capture, and bad files that say plainly what was not loaded.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import {
  SCREENSHOT_DIR,
  kpis,
  openApp,
  showView,
  type KpiId,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { ZERO_KPIS, warmUp, waitForReceived } from '../support/e2e-sim';
import { RawTruth } from '../support/e2e-truth';

const ws = useE2eWorkspace('sessions');
let serve: ServeProcess;
let reopened: ServeProcess | null = null;
let page: Page;
let sim: SimPublisher;
let truth: RawTruth;
let sessionFile = '';
let liveKpis: Record<KpiId, number> | null = null;

beforeAll(async () => {
  sim = await SimPublisher.start({ format: 'array', hash: 'int', rate: 0, seed: 11, replay: true });
  truth = new RawTruth(sim);
  const endpoint = sim.ranks[0]?.pubEndpoint ?? '';
  serve = await ws.serve('data', ['--endpoint', endpoint]);
  page = await openApp(ws.browser, serve.url);
  await warmUp(page, sim, endpoint);
  await sim.publish(200);
  await waitForReceived(page, truth, endpoint, ZERO_KPIS, 200);
  liveKpis = await kpis(page);
}, 120_000);

afterAll(async () => {
  truth?.stop();
  await sim?.close();
});

/** Clicks a header button that opens a file chooser and gives it `file`. */
async function chooseFile(p: Page, button: string, file: string): Promise<void> {
  const chooser = p.waitForEvent('filechooser');
  await p.getByRole('button', { name: button }).click();
  await (await chooser).setFiles(file);
}

async function expectSessionShown(p: Page, name: string): Promise<void> {
  await p.getByTestId('badge-session').waitFor({ timeout: 30_000 });
  expect(await p.getByTestId('badge-session').textContent()).toBe('read-only session');
  expect(await p.getByTestId('view-title').textContent()).toContain(name);
  await expect(p.getByTestId('save-session').isDisabled()).resolves.toBe(true);
}

async function backToLive(p: Page): Promise<void> {
  await p.getByRole('button', { name: 'Back to live' }).click();
  await p.getByTestId('badge-session').waitFor({ state: 'detached', timeout: 20_000 });
}

describe('sessions in the browser', () => {
  it('saves the session as a download and reopens it with identical totals', async () => {
    const live = liveKpis;
    if (!live) throw new Error('no live totals');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Save session as' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.kvscope\.jsonl\.gz$/);
    sessionFile = path.join(ws.dir, file.suggestedFilename());
    await file.saveAs(sessionFile);
    const bytes = await readFile(sessionFile);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    // Through the UI's Open session (a file chooser, then an upload).
    await chooseFile(page, 'Open session', sessionFile);
    await expectSessionShown(page, file.suggestedFilename());
    await showView(page, 'Overview');
    await expect.poll(() => kpis(page), { timeout: 20_000 }).toEqual(live);
    await backToLive(page);

    // And by restarting serve with --open.
    reopened = await ws.serve('data-reopen', ['--open', sessionFile]);
    const second = await openApp(ws.browser, reopened.url);
    await expectSessionShown(second, file.suggestedFilename());
    await expect.poll(() => kpis(second), { timeout: 20_000 }).toEqual(live);
    await second.context().close();
    await reopened.stop();
    reopened = null;
  }, 120_000);

  it('imports a seed-script capture with exact totals and finds a hash above 2^63 by every digit', async () => {
    const big = ['18446744073709551557', '17293822569102704640', '9223372036854775809'];
    const small = ['1234567', '7654321'];
    const lines = [
      // The seed script's json.dumps: bare integers, token_count after the struct's fields.
      `{"ts": 1764480000.25, "type": "BlockStored", "block_hashes": [${big[0]}, ${big[1]}], "parent_block_hash": null, "block_size": 16, "lora_id": null, "token_count": 32}`,
      `{"ts": 1764480000.5, "type": "BlockStored", "block_hashes": [${big[2]}, ${small[0]}, ${small[1]}], "parent_block_hash": ${big[1]}, "block_size": 16, "lora_id": null, "token_count": 48}`,
      `{"ts": 1764480001.0, "type": "BlockRemoved", "block_hashes": [${small[1]}]}`,
      `{"ts": null, "type": "UNDECODED", "bytes": 17, "error": "ValidationError: Expected array, got int"}`,
    ];
    const capture = path.join(ws.dir, 'seed-capture.jsonl');
    await writeFile(capture, `${lines.join('\n')}\n`);

    await chooseFile(page, 'Import capture', capture);
    await expectSessionShown(page, 'seed-capture.jsonl');
    // An import says so (it said "Opened").
    await expect
      .poll(() =>
        page.getByTestId('notice').filter({ hasText: 'seed-capture.jsonl' }).allTextContents(),
      )
      .toContain('Imported seed-capture.jsonlDismiss');
    await showView(page, 'Overview');
    await expect
      .poll(async () => {
        const k = await kpis(page);
        return [k['stored-blocks'], k['removed-blocks'], k['resident-blocks'], k.undecoded];
      })
      .toEqual([5, 1, 4, 1]);

    await showView(page, 'Chains');
    await page.getByTestId('chain-search').fill(big[0] ?? '');
    const hit = page.getByTestId('hash-matches').getByRole('listitem').first();
    await hit.waitFor({ timeout: 20_000 });
    expect(await hit.locator('.hash').first().textContent()).toBe(big[0]);
    expect(await hit.locator('.hash').first().getAttribute('title')).toBe(big[0]);
    // A prefix of the deeper big hash finds it, exact in every digit, resident.
    await page.getByTestId('chain-search').fill(big[2]?.slice(0, 15) ?? '');
    const hit2 = page
      .getByTestId('hash-matches')
      .getByRole('listitem')
      .filter({ has: page.locator(`[title="${big[2]}"]`) });
    await hit2.waitFor({ timeout: 20_000 });
    expect(await hit2.textContent()).toContain('resident');
    await page.getByTestId('chain-search').fill('');
    await backToLive(page);
  }, 90_000);

  it('opens the good part of a truncated session and says what was not loaded', async () => {
    const whole = await readFile(sessionFile);
    const cut = path.join(ws.dir, 'truncated.kvscope.jsonl.gz');
    await writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await chooseFile(page, 'Open session', cut);
    await expectSessionShown(page, 'truncated.kvscope.jsonl.gz');
    const problems = page.getByRole('alert', { name: 'Problems' });
    await problems.waitFor({ timeout: 20_000 });
    const text = (await problems.textContent()) ?? '';
    expect(text).toMatch(/not loaded/);
    expect(text).toMatch(/truncat|end of|incomplete|cut off/i);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'problems-truncated-1280.png') });
    await showView(page, 'Overview');
    const k = await kpis(page);
    expect(k['stored-blocks']).toBeGreaterThan(0);
    expect(k['stored-blocks']).toBeLessThan(liveKpis?.['stored-blocks'] ?? 0);
    await backToLive(page);
  }, 60_000);

  it('refuses a file of garbage with a plain error and keeps the live view', async () => {
    const junk = path.join(ws.dir, 'junk.kvscope.jsonl.gz');
    await writeFile(
      junk,
      Buffer.from('this is not a session file at all \x00\x01\x02\xff', 'binary'),
    );
    const mainTop = async () => (await page.locator('main.main').boundingBox())?.y;
    const topBefore = await mainTop();
    expect(topBefore).toBeGreaterThan(0);
    await chooseFile(page, 'Open session', junk);
    // The notice that names the file and says it was not opened (another alert naming the file,
    // gone once the live view is back, was taken for it first and left before it was read).
    const alert = page
      .getByRole('alert')
      .filter({ hasText: 'junk.kvscope.jsonl.gz' })
      .filter({ hasText: /could not open|not loaded/i })
      .first();
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.textContent()).toMatch(/could not open|not loaded/i);
    // The notice floats over the view: what the reader was aiming at did not move.
    expect(await mainTop()).toBe(topBefore);
    // News after it (a download's) shows beside the refusal, not in its place.
    await page.getByTestId('export-csv').click();
    await page
      .getByTestId('notice')
      .filter({ hasText: 'kvscope-rates' })
      .waitFor({ timeout: 20_000 });
    expect(await alert.isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'error-garbage-1280.png') });
    expect(await page.getByTestId('badge-session').count()).toBe(0);
    await showView(page, 'Overview');
    expect(await kpis(page)).toEqual(liveKpis);
  }, 60_000);

  it('keeps every refusal while newer news shows: the oldest waits behind, and comes back', async () => {
    const notices = page.getByTestId('notice');
    while ((await notices.count()) > 0)
      await notices.first().getByRole('button', { name: 'Dismiss the notice' }).click();
    const names = ['bad-1', 'bad-2', 'bad-3'].map((n) => `${n}.kvscope.jsonl.gz`);
    for (const name of names) {
      const file = path.join(ws.dir, name);
      await writeFile(file, Buffer.from(`not a session: ${name}\n`));
      await chooseFile(page, 'Open session', file);
      await page.getByRole('alert').filter({ hasText: name }).waitFor({ timeout: 20_000 });
    }
    // A download's news with three refusals on screen: it shows, and the oldest refusal waits.
    await page.getByTestId('export-csv').click();
    const download = notices.filter({ hasText: 'kvscope-rates' });
    await download.waitFor({ timeout: 20_000 });
    // (A live source's news may wait there too: the line counts what waits.)
    expect(await page.getByTestId('notices-waiting').textContent()).toMatch(/^\d+ older notices? /);
    expect(
      await page
        .getByRole('alert')
        .filter({ hasText: names[0] as string })
        .count(),
    ).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'notices-waiting-1280.png') });
    // Its time up, the download's notice goes and the first refusal shows again (once a live
    // source's news, a stall of the demo say, is dismissed too).
    await download.waitFor({ state: 'detached', timeout: 20_000 });
    const other = notices.filter({ hasNotText: /bad-\d\.kvscope/ });
    while ((await other.count()) > 0)
      await other.first().getByRole('button', { name: 'Dismiss the notice' }).click();
    for (const name of names)
      expect(await page.getByRole('alert').filter({ hasText: name }).count()).toBe(1);
    expect(await page.getByTestId('notices-waiting').count()).toBe(0);
    // Dismissed from the keys, each notice hands the focus on: the next one's button, then the tab.
    const focused = (): Promise<string | null> =>
      page.evaluate<string | null>(
        "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.getAttribute('role') ?? null",
      );
    await notices.first().getByRole('button', { name: 'Dismiss the notice' }).focus();
    for (let i = 0; i < 10 && (await notices.count()) > 0; i++) {
      const text = (await page.locator('.banner:focus-within > span').textContent()) ?? '';
      const before = await notices.count();
      await page.keyboard.press('Enter');
      await expect.poll(() => notices.filter({ hasText: text }).count()).toBe(0);
      // A live source's news that arrives after the last one went (a stall of the demo on a busy
      // machine) takes no focus from the tab: only a notice that was there is handed it.
      const after = await notices.count();
      if (after > 0 && after === before - 1) expect(await focused()).toBe('Dismiss the notice');
    }
    expect(await notices.count()).toBe(0);
    expect(await focused()).toBe('tab');
  }, 60_000);
});
