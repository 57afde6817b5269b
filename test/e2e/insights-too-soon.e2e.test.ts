// The Insights' verdict in Chromium says the cache is big enough only once the data can show it:
// a 1.5 s capture that evicted and re-stored nothing does not know yet; a capture that stored
// for longer than the thrash window past its first eviction, with no re-store, says big enough.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  openApp,
  setTheme,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

/** A capture of `stores` one-block stores `stepS` apart, each evicting the block stored before. */
function evictingCapture(stores: number, stepS: number): string {
  const lines: string[] = [];
  let seq = 0;
  for (let i = 0; i < stores; i += 1) {
    const ts = 1_767_225_600 + i * stepS;
    lines.push(
      `{"ts":${ts},"seq":${seq++},"type":"BlockStored","block_hashes":[${1000 + i}],"parent_block_hash":null,"token_count":16,"block_size":16,"lora_id":null,"medium":"GPU"}`,
    );
    if (i > 0)
      lines.push(
        `{"ts":${ts},"seq":${seq++},"type":"BlockRemoved","block_hashes":[${999 + i}],"medium":"GPU"}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

const ws = useE2eWorkspace('insights-too-soon');
let short: ServeProcess;
let long: ServeProcess;

beforeAll(async () => {
  const shortFile = await ws.file('short.jsonl', evictingCapture(31, 0.05));
  const longFile = await ws.file('long.jsonl', evictingCapture(31, 3));
  short = await ws.serve('data-short', ['--import', shortFile]);
  long = await ws.serve('data-long', ['--import', longFile]);
}, 120_000);

/** Opens the Insights once the whole file is in them (its 31 new stores). */
async function insights(url: string, width: number): Promise<Page> {
  const page = await openApp(ws.browser, url, { width, height: 800 });
  await page.getByTestId('tab-insights').click();
  await expect
    .poll(() => page.getByTestId('insight-new-stores').getAttribute('data-value'), {
      timeout: 20_000,
    })
    .toBe('31');
  return page;
}

describe('the verdict on a capture with no re-store', () => {
  it('does not call a 1.5 s capture big enough: it does not know yet', async () => {
    for (const width of [1024, 1440]) {
      const page = await insights(short.url, width);
      const verdict = (await page.getByTestId('insights-verdict').textContent()) ?? '';
      expect(verdict).not.toMatch(/cache is big enough/);
      expect(verdict).toMatch(/stored for only 1\.45 s after its first eviction/);
      expect(verdict).toMatch(/not known until it has stored for 60 s past an eviction/);
      await expect.poll(() => page.getByTestId('what-if-unsettled').count()).toBe(1);
      expect(await page.getByTestId('what-if-quiet').count()).toBe(0);
      // One KV cache group: no word of groups.
      expect(await page.getByTestId('kv-cache-groups').count()).toBe(0);
      for (const theme of ['light', 'dark'] as const) {
        await setTheme(page, theme);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `insights-too-soon-${width}-${theme}.png`),
          fullPage: true,
        });
      }
      await page.context().close();
    }
  }, 90_000);

  it('calls it big enough once stores ran past the thrash window after the first eviction', async () => {
    const page = await insights(long.url, 1440);
    const verdict = (await page.getByTestId('insights-verdict').textContent()) ?? '';
    expect(verdict).toMatch(
      /No block was stored again after its eviction \(31 new stores, 30 blocks removed\): at this load the cache is big enough\./,
    );
    expect(await page.getByTestId('what-if-quiet').count()).toBe(1);
    expect(await page.getByTestId('what-if-unsettled').count()).toBe(0);
    await page.context().close();
  }, 60_000);
});
