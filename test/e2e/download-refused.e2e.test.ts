// A download the server refuses says why, in real Chromium against `kvscope serve`: the browser
// bridge reads the reply before it hands anything to the download, so a refusal's reason reaches
// the notice (an `<a download>` of the route dropped it and said "Downloading" for good). And the
// live view's own problems come under a heading of their own, not a file's.
import { readFile, rm } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  openApp,
  setTheme,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

const ws = useE2eWorkspace('download-refused');
let serve: ServeProcess;

beforeAll(async () => {
  // A bad recordings budget is a live problem (kept to 2 GiB instead): no file is opened. The
  // child takes its environment when it is spawned, inside startServe's first, synchronous step.
  process.env.KVSCOPE_RECORDINGS_BUDGET = 'lots';
  const started = ws.serve('data');
  delete process.env.KVSCOPE_RECORDINGS_BUDGET;
  serve = await started;
}, 120_000);

describe('a download in the browser', () => {
  it('saves the session when the server can, and shows the reason when it cannot', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1024, height: 768 });
    const notice = page.getByTestId('notice');

    const downloaded = page.waitForEvent('download');
    await page.getByTestId('save-session').click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toMatch(/^kvscope-session-.*\.kvscope\.jsonl\.gz$/);
    const file = await download.path();
    // The download holds the server's reply, a gzip'd session, not an error page.
    expect(gunzipSync(await readFile(file)).toString('utf8')).toMatch(/^\{/);
    const downloading = notice.filter({ hasText: 'Downloading kvscope-session-' });
    await downloading.waitFor();

    // The copy for the download cannot be written now: the server answers with why.
    await rm(path.join(serve.dataDir, 'transfers'), { recursive: true, force: true });
    await downloading.getByRole('button', { name: 'Dismiss the notice' }).click();
    await page.getByTestId('save-session').click();
    const refused = notice.filter({ hasText: 'could not be copied for the download' });
    await refused.waitFor();
    const text = (await refused.textContent()) ?? '';
    expect(text).toMatch(/could not save kvscope-session-\S+\.kvscope\.jsonl\.gz: /);
    expect(text).toContain('ENOENT');
    expect(text).not.toContain('Downloading');
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      for (const width of [1024, 1440]) {
        await page.setViewportSize({ width, height: 768 });
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `download-refused-${theme}-${width}.png`),
        });
      }
    }
    await page.context().close();
  }, 60_000);

  it('heads the live view problems as the live view, not as a file', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1024, height: 768 });
    const problems = page.getByTestId('problems');
    await problems.filter({ hasText: 'KVSCOPE_RECORDINGS_BUDGET' }).waitFor();
    const head = (await problems.locator('.problems-head strong').textContent()) ?? '';
    expect(head).toBe('The live view has 1 problem');
    await page.context().close();
  }, 60_000);
});
