// A capture of 64 data-parallel ranks (64 sources) in Chromium: the rate chart's legend keeps to
// three rows and scrolls the rest, so the plot keeps its height (17 rows of legend had squeezed it
// to about 120 px; 500 sources pushed it off the screen).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  expectKpi,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

const RANKS = 64;

/** One store a second on each rank, for 5 s. */
function capture(): string {
  const lines: string[] = [];
  for (let s = 0; s < 5; s += 1)
    for (let r = 0; r < RANKS; r += 1)
      lines.push(
        `{"ts":${1_767_225_600 + s},"seq":${s},"dp_rank":${r},"type":"BlockStored","block_hashes":[${1000 * r + s + 1}],"parent_block_hash":null,"token_count":16,"block_size":16,"lora_id":null,"medium":"GPU"}`,
      );
  return `${lines.join('\n')}\n`;
}

const ws = useE2eWorkspace('many-sources-legend');
let serve: ServeProcess;

beforeAll(async () => {
  serve = await ws.serve('data', ['--import', await ws.file('ranks.jsonl', capture())]);
}, 120_000);

describe('the legend of 64 sources', () => {
  it('keeps to three rows, scrolled, and leaves the plot its height', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1280, height: 800 });
    await expectKpi(page, 'stored-blocks', 320);
    const legend = page.locator('.legend').first();
    const box = await legend.boundingBox();
    const scroll = await legend.evaluate((e) => [e.scrollHeight, e.clientHeight]);
    // 64 sources' entries do not fit in three rows: the rest scroll.
    expect(scroll[0]).toBeGreaterThan(scroll[1] as number);
    expect(box?.height).toBeLessThan(80);
    const plot = await page.locator('.chart-body').first().boundingBox();
    expect(plot?.height).toBeGreaterThanOrEqual(160);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'many-sources-legend.png') });
    await page.context().close();
  }, 60_000);
});
