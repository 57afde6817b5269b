// The Insights view in Chromium: for an opened capture of two data-parallel ranks it shows the
// numbers `kvscope analyze --json` prints for the same file; for the live demo it answers at all.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/built-app';
import {
  SCREENSHOT_DIR,
  openApp,
  setTheme,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { expectRoundValues, tickLabels } from '../support/round-ticks';
import { eventually } from '../support/wait-for';
import { twoRankCapture } from '../analysis/two-rank-capture';

const ws = useE2eWorkspace('insights');
let capture: string;
let analyzed: Record<string, unknown>;
let analyzed5: { thrash_restores: number; thrash_window_s: number };
let opened: ServeProcess;
let live: ServeProcess;

beforeAll(async () => {
  capture = await ws.file('two-ranks.jsonl', twoRankCapture(9, 900).text);
  analyzed = JSON.parse(
    execFileSync('node', [CLI, 'analyze', '--json', capture], { encoding: 'utf8' }),
  );
  analyzed5 = JSON.parse(
    execFileSync('node', [CLI, 'analyze', '--json', '--thrash-window', '5', capture], {
      encoding: 'utf8',
    }),
  );
  opened = await ws.serve('data-opened', ['--import', capture]);
  live = await ws.serve('data-live');
}, 120_000);

const value = async (page: Page, id: string): Promise<string | null> =>
  page.getByTestId(`insight-${id}`).getAttribute('data-value');

async function showInsights(page: Page): Promise<void> {
  await page.getByTestId('tab-insights').click();
  await page.getByTestId('insights').waitFor({ timeout: 20_000 });
}

describe('the Insights view', () => {
  it('shows what kvscope analyze prints for the same capture of two ranks', async () => {
    const page = await openApp(ws.browser, opened.url);
    await showInsights(page);
    const a = analyzed as {
      new_stores: number;
      restores: number;
      thrash_restores: number;
      announced_hits: number;
      lifetime: Record<string, { p50_s: number | null }>;
      cross_source: {
        duplicate_stores: number;
        routing_regret_blocks: number;
        shared_blocks_now: number;
      };
    };
    expect(a.new_stores).toBeGreaterThan(0);
    expect(a.restores).toBeGreaterThan(0);
    expect(a.cross_source.duplicate_stores).toBeGreaterThan(0);
    const expected: Record<string, number | null> = {
      'new-stores': a.new_stores,
      restores: a.restores,
      'thrash-restores': a.thrash_restores,
      'announced-hits': a.announced_hits,
      'duplicate-stores': a.cross_source.duplicate_stores,
      'routing-regret': a.cross_source.routing_regret_blocks,
      'shared-now': a.cross_source.shared_blocks_now,
      'lifetime-p50-gpu': a.lifetime.GPU?.p50_s ?? null,
      'lifetime-p50-cpu': a.lifetime.CPU?.p50_s ?? null,
    };
    for (const [id, want] of Object.entries(expected)) {
      const got = await value(page, id);
      expect(got === '' ? null : Number(got), id).toBe(want);
    }
    const verdict = await page.getByTestId('insights-verdict').textContent();
    expect(verdict).toMatch(/re-stores/);
    expect(verdict).toMatch(/already cached on another source/);
    expect(await page.getByTestId('overlap-heatmap').count()).toBe(1);
    expect(await page.getByTestId('what-if').count()).toBeGreaterThan(0);
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `insights-two-ranks-1280-${theme}.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, 'insights-two-ranks-1024-light.png'),
      fullPage: true,
    });
    await page.context().close();
  }, 90_000);

  it('draws its charts on round ticks', async () => {
    const page = await openApp(ws.browser, opened.url);
    await showInsights(page);
    const charts = [
      page.getByTestId('what-if').first().locator('.insight-chart'),
      page.getByTestId('thrash-panel'),
      page.getByTestId('lifetime-GPU'),
    ];
    for (const chart of charts) {
      await chart.locator('.recharts-cartesian-axis-tick-value').first().waitFor();
      const { values } = await tickLabels(chart);
      // The what-if's blocks axis and its hits axis are both values: each runs from 0 on its own.
      const zeros = values.flatMap((v, i) => (v === 0 ? [i] : []));
      const axes = zeros.map((z, i) => values.slice(z, zeros[i + 1]));
      expect(axes.length).toBeGreaterThanOrEqual(1);
      for (const axis of axes) expectRoundValues(axis);
    }
    await page.context().close();
  }, 90_000);

  it("follows the Thrash panel's window in the Thrash tile, with kvscope analyze's count for it", async () => {
    const page = await openApp(ws.browser, opened.url);
    await showInsights(page);
    const tile = page.getByTestId('insight-thrash-restores');
    await expect.poll(() => tile.getAttribute('data-value')).toBe(String(analyzed.thrash_restores));
    expect(analyzed5.thrash_window_s).toBe(5);
    // The fixture's re-stores come back at several distances: 5 s must count fewer than 60 s.
    expect(analyzed5.thrash_restores).toBeLessThan(analyzed.thrash_restores as number);
    await page.getByTestId('thrash-window').selectOption('5');
    await expect
      .poll(() => tile.getAttribute('data-value'))
      .toBe(String(analyzed5.thrash_restores));
    const card = page.locator('.kpi', { has: tile });
    await expect.poll(() => card.locator('.kpi-label').textContent()).toBe('Thrash (5 s)');
    expect(await page.getByTestId('thrash-at-window').getAttribute('data-value')).toBe(
      String(analyzed5.thrash_restores),
    );
    // The bars are those of the window picked too (they stayed at 60 s, under a 5 s count).
    const caption = page.getByTestId('thrash-caption');
    expect(await caption.textContent()).toMatch(/red ones came back within 5 s of their eviction/);
    expect(await caption.getAttribute('data-drawn-thrash')).toBe(String(analyzed5.thrash_restores));
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `insights-thrash-5s-${width}.png`) });
    }
    // The pick is kept across a reload, as the theme is (it went back to 60 s).
    await page.reload();
    await showInsights(page);
    await expect.poll(() => page.getByTestId('thrash-window').inputValue()).toBe('5');
    await expect
      .poll(() => tile.getAttribute('data-value'))
      .toBe(String(analyzed5.thrash_restores));
    await page.context().close();
  }, 60_000);

  it('opens a hot prefix in Chains by its hash', async () => {
    const page = await openApp(ws.browser, opened.url);
    await showInsights(page);
    const row = page.getByTestId('hot-prefix').first();
    const hash = await row.locator('.hash').getAttribute('title');
    await row.getByRole('button', { name: 'Open in Chains' }).click();
    await expect.poll(() => page.getByTestId('chain-search').inputValue()).toBe(hash);
    expect(page.url()).toContain(`#chains?hash=${hash}`);
    await page.context().close();
  }, 60_000);

  it('labels the counts of its charts in whole numbers, each label once', async () => {
    // A handful of blocks: counts of a few, where fractional ticks printed as whole numbers
    // read 0, 0, 1, 1, 1 (a re-store, thrash, lifetimes and extra hits of one or two).
    const line = (seq: number, ts: number, type: string, hashes: number[]) =>
      JSON.stringify({ seq, ts, type, block_hashes: hashes, medium: 'GPU', block_size: 16 });
    const small = path.join(ws.dir, 'small.jsonl');
    await writeFile(
      small,
      [
        line(0, 1000, 'BlockStored', [1, 2, 3]),
        line(1, 1001, 'BlockStored', [4, 5]),
        line(2, 1003, 'BlockRemoved', [2]),
        line(3, 1005, 'BlockStored', [2]),
        line(4, 1012, 'BlockRemoved', [4, 5]),
        line(5, 1020, 'BlockRemoved', [1]),
        line(6, 1030, 'BlockStored', [4]),
      ].join('\n'),
    );
    const serve = await ws.serve('data-small', ['--import', small]);
    const page = await openApp(ws.browser, serve.url);
    try {
      await showInsights(page);
      const charts = page.getByTestId('insights').locator('.recharts-wrapper');
      await expect.poll(() => charts.count()).toBeGreaterThanOrEqual(3);
      const labels = await charts.evaluateAll((els) =>
        els.map((el) =>
          [...el.querySelectorAll('.recharts-yAxis-tick-labels text')].map((t) => t.textContent),
        ),
      );
      for (const axis of labels) {
        expect(axis.length).toBeGreaterThan(1);
        expect(new Set(axis).size, axis.join(', ')).toBe(axis.length);
        for (const label of axis) expect(label).toMatch(/^\d+$/);
      }
    } finally {
      await page.context().close();
      await serve.stop();
    }
  }, 60_000);

  it('answers for the live demo too, and opens straight from the #insights link', async () => {
    const context = await ws.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${live.url}#insights`);
    await page.getByTestId('insights').waitFor({ timeout: 20_000 });
    await eventually(
      async () => Number((await value(page, 'new-stores')) ?? 0),
      (n) => n > 0,
      'the demo to store blocks',
    );
    expect(await page.getByTestId('insights-verdict').textContent()).not.toBe('');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'insights-demo-1280-light.png') });
    await context.close();
  }, 60_000);
});
