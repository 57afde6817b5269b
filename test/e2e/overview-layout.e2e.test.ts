// The Overview's layout at laptop widths, in real Chromium against `kvscope serve` with an opened
// capture of two ranks that has a clear: the marker notes wrap the charts' heads, and
// each chart's card must grow with its head rather than let the plot run over the next card. And
// the header of an opened session with many removed sources: their badges wrap.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { twoRankCapture } from '../analysis/two-rank-capture';
import { stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { eventually } from '../support/wait-for';

const ws = useE2eWorkspace('overview-layout');
let serve: ServeProcess;

beforeAll(async () => {
  const capture = path.join(ws.dir, 'two-ranks.jsonl');
  // Seed 5 has one AllBlocksCleared: a marker, so a marker note in each chart's head.
  await writeFile(capture, twoRankCapture(5, 900).text);
  serve = await ws.serve('data', ['--import', capture]);
}, 120_000);

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The boxes of the Overview's parts that must not overlap: cards, their heads and plots. */
async function layoutBoxes(page: Page): Promise<Record<string, Box>> {
  const boxes: Record<string, Box> = {};
  for (const id of ['chart-rates', 'chart-resident']) {
    const card = page.getByTestId(id);
    for (const [part, locator] of [
      ['card', card],
      ['head', card.locator('.chart-head')],
      ['plot', card.locator('.chart-body')],
      ['title', card.locator('.chart-head h2')],
      ['png', card.getByTestId(`${id}-png`)],
    ] as const) {
      const box = await locator.boundingBox();
      if (!box) throw new Error(`${id} has no ${part}`);
      boxes[`${id} ${part}`] = box;
    }
    const svg = await card.locator('.chart-body svg.recharts-surface').boundingBox();
    if (!svg) throw new Error(`${id} has no chart surface`);
    boxes[`${id} svg`] = svg;
    // The axis labels: the union of the plot's texts' boxes (recharts draws them in layers of its own).
    boxes[`${id} x-axis`] = await card.evaluate((el) => {
      const rs = [...el.querySelectorAll('.chart-body svg text')].map((t) =>
        t.getBoundingClientRect(),
      );
      const bottom = Math.max(...rs.map((r) => r.bottom));
      const low = rs.filter((r) => r.bottom > bottom - 2);
      const x = Math.min(...low.map((r) => r.left));
      const top = Math.min(...low.map((r) => r.top));
      return { x, y: top, width: Math.max(...low.map((r) => r.right)) - x, height: bottom - top };
    });
  }
  return boxes;
}

/** Whether box a lies within box b (half a pixel of rounding allowed). */
function inside(a: Box, b: Box): boolean {
  return (
    a.x >= b.x - 0.5 &&
    a.y >= b.y - 0.5 &&
    a.x + a.width <= b.x + b.width + 0.5 &&
    a.y + a.height <= b.y + b.height + 0.5
  );
}

/** Whether a chart's surface is drawn at its plot's width (within a pixel). */
function fits(svg: Box | undefined, plot: Box | undefined): boolean {
  return svg !== undefined && plot !== undefined && Math.abs(svg.width - plot.width) <= 1;
}

/** Whether two boxes share more than a rounding pixel. */
function intersects(a: Box, b: Box): boolean {
  return (
    a.x + 0.5 < b.x + b.width &&
    b.x + 0.5 < a.x + a.width &&
    a.y + 0.5 < b.y + b.height &&
    b.y + 0.5 < a.y + a.height
  );
}

describe('the Overview at laptop widths', () => {
  it('keeps each chart inside its card, below its wrapped head, at 1024 to 1440 px', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1024, height: 768 });
    await page.getByTestId('range-all').click();
    // The capture's clear draws a marker note into both heads, which then wrap.
    await page.getByTestId('chart-rates').getByTestId('markers-clear').waitFor();
    for (const by of ['medium', 'source'] as const) {
      await page.getByTestId(`resident-by-${by}`).click();
      for (const width of [1024, 1280, 1440]) {
        await page.setViewportSize({ width, height: 768 });
        // Recharts redraws a chart at its new size a frame or more after its card resized
        // (ResizeObserver): the figures are read once every chart's surface fits its plot again.
        const b = await eventually(
          () => layoutBoxes(page),
          (x) =>
            (x['chart-rates card']?.width ?? 0) <= width &&
            ['chart-rates', 'chart-resident'].every((id) => fits(x[`${id} svg`], x[`${id} plot`])),
          `the Overview laid out at ${width} px`,
        );
        const at = `by ${by} at ${width} px`;
        const rates = (part: string) => b[`chart-rates ${part}`] as Box;
        const resident = (part: string) => b[`chart-resident ${part}`] as Box;
        expect(intersects(rates('card'), resident('card')), `the cards overlap ${at}`).toBe(false);
        for (const card of [rates, resident]) {
          expect(inside(card('head'), card('card')), `a head leaves its card ${at}`).toBe(true);
          expect(inside(card('plot'), card('card')), `a plot leaves its card ${at}`).toBe(true);
          expect(inside(card('x-axis'), card('card')), `an x axis leaves its card ${at}`).toBe(
            true,
          );
          expect(intersects(card('head'), card('x-axis')), `a head meets its axis ${at}`).toBe(
            false,
          );
          // The PNG button stays on the title's line, however the legend wraps (it took a line
          // of its own at 1300 px with two sources), and in the card.
          const [png, title] = [card('png'), card('title')];
          expect(png.y < title.y + title.height && title.y < png.y + png.height, at).toBe(true);
          expect(inside(png, card('card')), `the PNG button leaves its card ${at}`).toBe(true);
          expect(intersects(png, card('plot')), `the PNG button meets the plot ${at}`).toBe(false);
        }
      }
    }
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'charts-marker-1024.png') });
    await page.context().close();
  }, 120_000);
});

describe("the rate chart's tooltip", () => {
  it('is drawn over the card below it when it is taller than its own (its last rows were hidden)', async () => {
    // Four sources: a row per source's stored and removed, under the two totals.
    const sources = [0, 1, 2, 3].map((i) => ({
      id: `engine-${i}`,
      name: `engine-${i}`,
      endpoint: `tcp://127.0.0.1:${5557 + i}`,
    }));
    const t0 = Date.UTC(2026, 0, 1) / 1000;
    const lines = [JSON.stringify(makeHeader('test', new Date(t0 * 1000), sources))];
    for (let s = 0; s < 20; s++)
      sources.forEach((src, i) =>
        lines.push(
          encodeRecord({
            k: 'event',
            rec: { ...stored(src.id, t0 + s, [`${i + 1}${s + 100}`]), seq: s },
          }),
        ),
      );
    const file = await ws.file('four.kvscope.jsonl.gz', gzipSync(`${lines.join('\n')}\n`));
    const opened = await ws.serve('four', ['--open', file]);
    const page = await openApp(ws.browser, opened.url, { width: 1280, height: 800 });
    await page.getByTestId('range-all').click();
    // The plotting area (the grid), not the axes around it: a point there has a tooltip.
    const grid = page.getByTestId('chart-rates').locator('.recharts-cartesian-grid');
    const box = await grid.boundingBox();
    if (!box) throw new Error('no rate chart');
    // Low in the plot: the tooltip, ten rows, runs past the card's bottom.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height - 4);
    const tip = page.getByTestId('chart-rates').locator('.recharts-tooltip-wrapper');
    const rows = tip.locator('.recharts-tooltip-item');
    await expect.poll(() => rows.count()).toBeGreaterThan(2);
    const last = await rows.last().boundingBox();
    const card = await page.getByTestId('chart-rates').boundingBox();
    if (!last || !card) throw new Error('no tooltip row');
    expect(last.y + last.height, 'the test needs a tooltip past the card').toBeGreaterThan(
      card.y + card.height,
    );
    // What is drawn at the last row's middle is the tooltip, not the card below (its wrapper
    // lets the pointer through, so the hit test is asked with that off: paint order decides).
    const hit = await page.evaluate<boolean>(`(() => {
      const tip = document.querySelector('[data-testid="chart-rates"] .recharts-tooltip-wrapper');
      tip.style.pointerEvents = 'auto';
      const at = document.elementFromPoint(${last.x + last.width / 2}, ${last.y + last.height / 2});
      return tip.contains(at);
    })()`);
    expect(hit).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'chart-tooltip-over-card.png') });
    await page.context().close();
  }, 60_000);
});

describe('the session header', () => {
  it('wraps the badges of many removed sources: no sideways scroll, the file name shown, at 800 to 1920 px', async () => {
    // Eight sources, each removed once it has sent an event: a badge each in the header.
    const sources = Array.from({ length: 8 }, (_, i) => ({
      id: `s${i}`,
      name: `Demo (built-in simulator) #${i}`,
      endpoint: `tcp://127.0.0.1:${5557 + i}`,
    }));
    const t0 = Date.UTC(2026, 0, 1) / 1000;
    const lines = [
      JSON.stringify(makeHeader('test', new Date(t0 * 1000), sources)),
      ...sources.map((s, i) =>
        encodeRecord({ k: 'event', rec: { ...stored(s.id, t0 + i, [`${i}1`]), seq: 0 } }),
      ),
      ...sources.map((s, i) =>
        encodeRecord({ k: 'source', rec: { ...s, removedAt: t0 + 10 + i } }),
      ),
    ];
    const file = await ws.file('many-removed.kvscope.jsonl.gz', gzipSync(`${lines.join('\n')}\n`));
    const opened = await ws.serve('many-removed', ['--open', file]);
    const page = await openApp(ws.browser, opened.url, { width: 800, height: 700 });
    await expect.poll(() => page.getByTestId('removed-source').count()).toBe(8);
    for (const width of [800, 1400, 1920]) {
      await page.setViewportSize({ width, height: 700 });
      const m = await page.evaluate<{ scroll: number; window: number; title: number }>(`({
        scroll: document.documentElement.scrollWidth,
        window: window.innerWidth,
        title: document.querySelector('[data-testid="view-title"]').getBoundingClientRect().width,
      })`);
      expect(m.scroll, `the page scrolls sideways at ${width} px`).toBeLessThanOrEqual(m.window);
      expect(m.title, `the file name is squeezed out at ${width} px`).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `session-removed-${width}.png`) });
    }
    await page.context().close();
  }, 60_000);
});
