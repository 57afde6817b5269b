// The Overview's tiles show a 7-8 digit total whole at 1024 px (it was cut to "1,082,…"), in
// real Chromium against `kvscope serve` with an imported capture of 1.1 M stored blocks.
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
import { eventually } from '../support/wait-for';

const BATCHES = 1100;
const PER_BATCH = 1000;

const ws = useE2eWorkspace('kpi-long');
let serve: ServeProcess;

/** Batches of 1,000 stored blocks, each removed again: 1.1 M stored and removed, none resident. */
function bigCapture(): string {
  const lines: string[] = [];
  let seq = 0;
  for (let b = 0; b < BATCHES; b++) {
    const hashes = Array.from({ length: PER_BATCH }, (_, i) => b * PER_BATCH + i + 1).join(',');
    const ts = 1_767_225_600 + b * 0.01;
    const head = `{"ts":${ts},"dp_rank":0,"block_hashes":[${hashes}]`;
    lines.push(
      `${head},"seq":${seq++},"type":"BlockStored","parent_block_hash":null,"block_size":16,"medium":"GPU"}`,
      `${head},"seq":${seq++},"type":"BlockRemoved","medium":"GPU"}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  const capture = await ws.file('big.jsonl', bigCapture());
  serve = await ws.serve('data', ['--import', capture]);
}, 120_000);

/** Each tile value's text, and whether it is cut (its text wider than its box). */
function cutValues(page: Page): Promise<{ text: string; cut: boolean }[]> {
  return page.$$eval('.kpis .kpi-value', (els) =>
    els.map((el) => ({ text: el.textContent ?? '', cut: el.scrollWidth > el.clientWidth })),
  );
}

describe('the Overview tiles', () => {
  it('show 7 and 8 digit totals whole at 1024 px, light and dark', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1024, height: 768 });
    const stored = page.getByTestId('kpi-stored-blocks');
    await eventually(
      () => stored.getAttribute('data-value'),
      (v) => v === String(BATCHES * PER_BATCH),
      'the imported capture counted',
      90_000,
    );
    await page.getByTestId('kpi-removed-blocks').filter({ hasText: '1,100,000' }).waitFor();
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      for (const width of [1024, 1440]) {
        await page.setViewportSize({ width, height: 768 });
        const values = await eventually(
          () => cutValues(page),
          (vs) => vs.some((v) => v.text === '1,100,000'),
          `the tiles at ${width} px`,
        );
        expect(
          values.filter((v) => v.cut),
          `cut at ${width} px, ${theme}`,
        ).toEqual([]);
        // The widest 8-digit total, in a tile beside the real one (added, measured and removed
        // in one step, before React draws again).
        const eightCut = await stored.evaluate((el) => {
          const twin = el.cloneNode() as typeof el;
          twin.textContent = '88,888,888';
          twin.style.setProperty('--kpi-chars', '10');
          el.after(twin);
          const cut = twin.scrollWidth > twin.clientWidth;
          twin.remove();
          return cut;
        });
        expect(eightCut, `an 8-digit total cut at ${width} px, ${theme}`).toBe(false);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `kpi-long-${theme}-${width}.png`),
        });
      }
    }
    await page.context().close();
  }, 180_000);
});
