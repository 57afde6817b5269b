// Long names in real Chromium against `kvscope serve`: a 5,000-character medium name is cut in the
// chart legend (its whole name in the title), so the legend stays as wide as the card; the exported
// PNG's legend names the marker lines (a cache clear here) in their colour; the overlap heatmap
// keeps three long source names that differ only at the end on one line each, cut in the middle.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  expectKpi,
  openApp,
  setTheme,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { headHasColours } from '../support/png-head';

const LONG = `M${'x'.repeat(4999)}`;
const T0 = 1_767_225_600;

/** Stores on GPU and on a medium of 5,000 characters for 20 s, a cache clear at 10 s. */
function capture(): string {
  const lines: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    for (const [k, medium] of [
      [0, 'GPU'],
      [1, LONG],
    ] as const) {
      lines.push(
        `{"ts":${T0 + i},"seq":${2 * i + k},"type":"BlockStored","block_hashes":[${100 + 2 * i + k}],"parent_block_hash":null,"token_count":16,"block_size":16,"lora_id":null,"medium":"${medium}"}`,
      );
    }
    if (i === 10) lines.push(`{"ts":${T0 + i},"seq":${2 * i + 1},"type":"AllBlocksCleared"}`);
  }
  return `${lines.join('\n')}\n`;
}

const NAMES = [
  'vllm-llama-70b-prod-east-rank-0',
  'vllm-llama-70b-prod-east-rank-1',
  'sglang-qwen-72b-prod-west-rank-2',
];

/** A session in which the three sources all hold the same two blocks. */
function session(): Buffer {
  const sources = NAMES.map((name, i) => ({
    id: `s${i}`,
    name,
    endpoint: `tcp://127.0.0.1:${i + 1}`,
  }));
  const lines = [JSON.stringify(makeHeader('test', new Date(0), sources))];
  sources.forEach((s, i) => {
    const rec = { ...stored(s.id, 1_767_225_600 + i, ['11', '12']), seq: 0 };
    lines.push(encodeRecord({ k: 'event', rec }));
  });
  return gzipSync(`${lines.join('\n')}\n`);
}

const ws = useE2eWorkspace('legend-names');
let serve: ServeProcess;
/** Serves the session of three sources with long names. */
let sessionServe: ServeProcess;

beforeAll(async () => {
  const file = await ws.file('long-medium.jsonl', capture());
  serve = await ws.serve('data', ['--import', file]);
  const sessionFile = await ws.file('three-sources.kvscope.jsonl.gz', session());
  sessionServe = await ws.serve('session-data', ['--open', sessionFile]);
}, 120_000);

async function overview(width: number): Promise<Page> {
  const page = await openApp(ws.browser, serve.url, { width, height: 900 });
  await expectKpi(page, 'stored-blocks', 40);
  await page.getByTestId('range-all').click();
  return page;
}

describe('chart legends', () => {
  it('cut a 5,000-character medium name, with the whole name in the title', async () => {
    for (const width of [1024, 1440]) {
      const page = await overview(width);
      const card = page.getByTestId('chart-resident');
      const item = card.locator('.legend-item', { hasText: 'Mxxx' });
      await item.waitFor({ timeout: 20_000 });
      expect(await item.getAttribute('title')).toBe(`Hide resident ${LONG}`);
      const itemBox = await item.boundingBox();
      const cardBox = await card.boundingBox();
      if (!itemBox || !cardBox) throw new Error('the legend or its card is not drawn');
      expect(itemBox.width).toBeLessThan(300);
      // DOM code as text: this file is type-checked for Node.
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(width);
      for (const theme of ['light', 'dark'] as const) {
        await setTheme(page, theme);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `legend-long-medium-${width}-${theme}.png`),
        });
      }
      await page.context().close();
    }
  }, 90_000);

  it('name the marker lines in the exported PNG, in their colour', async () => {
    const page = await overview(1440);
    const card = page.getByTestId('chart-rates');
    await expect.poll(() => card.getByTestId('markers-clear').textContent()).toMatch(/×1$/);
    const meta = JSON.parse(
      (await card.locator('[data-export-meta]').getAttribute('data-export-meta')) ?? '{}',
    ) as { legend: { color: string; label: string }[] };
    const clear = meta.legend.find((l) => l.label === 'cache cleared ×1');
    expect(clear).toBeDefined();
    const download = page.waitForEvent('download');
    await page.getByTestId('chart-rates-png').click();
    const png = await readFile(await (await download).path());
    await writeFile(path.join(SCREENSHOT_DIR, 'legend-markers-exported.png'), png);
    const svg = await card.locator('svg.recharts-surface').boundingBox();
    if (!svg) throw new Error('the rate chart has no plot');
    // The marker's colour is in the image's head (title, range, sources, legend), above the plot.
    const [inHead] = await headHasColours(page, png, svg.height, [clear?.color ?? '']);
    expect(inHead).toBe(true);
    await page.context().close();
  }, 60_000);
});

describe('the overlap heatmap', () => {
  it('keeps each long source name on one line, cut in the middle, the whole name in its title', async () => {
    const page = await openApp(ws.browser, sessionServe.url, { width: 1280, height: 900 });
    await expectKpi(page, 'stored-blocks', 6);
    await page.getByRole('tab', { name: 'Insights' }).click();
    const heatmap = page.getByTestId('overlap-heatmap');
    await heatmap.waitFor({ timeout: 20_000 });
    const headers = heatmap.locator('th[scope]');
    await expect.poll(() => headers.count()).toBe(6);
    const cellHeight = (await heatmap.locator('td').first().boundingBox())?.height ?? 0;
    expect(cellHeight).toBeGreaterThan(0);
    for (const th of await headers.all()) {
      const title = (await th.getAttribute('title')) ?? '';
      expect(NAMES).toContain(title);
      const text = (await th.textContent()) ?? '';
      // Both ends of the name stay: the rank the names differ by is seen.
      expect(text).toMatch(/^.+….+$/);
      expect(title.startsWith(text.split('…')[0] ?? '')).toBe(true);
      expect(title.endsWith(text.split('…')[1] ?? '')).toBe(true);
      // One line: no taller than a number's cell of the same row height.
      expect((await th.boundingBox())?.height ?? Infinity).toBeLessThanOrEqual(cellHeight + 1);
      // Nothing drawn past its cell.
      const fits = await th.evaluate(
        (el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth <= el.clientWidth,
      );
      expect(fits).toBe(true);
    }
    await page.getByTestId('router-panel').screenshot({
      path: path.join(SCREENSHOT_DIR, 'heatmap-long-names.png'),
    });
    await page.context().close();
  }, 60_000);
});
