// Charts that behave like Grafana's, in real Chromium against `kvscope serve` with an opened
// capture of two ranks: a drag zooms, the scrubber pans, reset comes back; a click opens the
// events before that time; resident blocks per source; a PNG with title, legend, sources and
// time range; the rates CSV with source names and ISO times.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventPage, Series } from '../../shared/api-types';
import { twoRankCapture } from '../analysis/two-rank-capture';
import {
  SCREENSHOT_DIR,
  kpi,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { headHasColours, rightEdgeIsBlank } from '../support/png-head';
import { expectRoundValues, tickLabels } from '../support/round-ticks';
import { eventually } from '../support/wait-for';

const ws = useE2eWorkspace('charts');
let serve: ServeProcess;

beforeAll(async () => {
  const capture = await ws.file('two-ranks.jsonl', twoRankCapture(11, 900).text);
  serve = await ws.serve('data', ['--import', capture]);
}, 120_000);

interface Shown {
  first: number;
  last: number;
}

/** The first and last point times a chart draws. */
async function shown(page: Page, testId = 'chart-rates'): Promise<Shown> {
  const card = page.getByTestId(testId);
  const [first, last] = await Promise.all([
    card.getAttribute('data-first-t'),
    card.getAttribute('data-last-t'),
  ]);
  return { first: Number(first ?? NaN), last: Number(last ?? NaN) };
}

/** Waits for a chart to draw a span other than `not` (or any span when `not` is null). */
async function shownChanged(page: Page, not: Shown | null): Promise<Shown> {
  return eventually(
    () => shown(page),
    (s) =>
      Number.isFinite(s.first) &&
      s.last > s.first &&
      (!not || s.first !== not.first || s.last !== not.last),
    'the chart to draw another span',
  );
}

/** Drags across the rate chart's plot from fraction a to fraction b of its width. */
async function dragChart(page: Page, a: number, b: number): Promise<void> {
  const box = await page
    .getByTestId('chart-rates')
    .locator('.recharts-cartesian-grid')
    .boundingBox();
  if (!box) throw new Error('the rate chart has no plot');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * a, y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++)
    await page.mouse.move(box.x + box.width * (a + ((b - a) * i) / 8), y);
  await page.mouse.up();
}

/** The scrubber's window and span in seconds, read from its slider attributes. */
async function scrubberState(page: Page): Promise<{ from: number; min: number; max: number }> {
  const track = page.getByTestId('time-scrubber').locator('.scrubber-track');
  const [from, min, max] = await Promise.all(
    ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map(async (a) =>
      Number(await track.getAttribute(a)),
    ),
  );
  return { from: from ?? NaN, min: min ?? NaN, max: max ?? NaN };
}

/** Seconds of the day of the zoom chip's first clock ("Zoomed: HH:MM:SS – ..."). */
async function chipFrom(page: Page): Promise<number> {
  const text = (await page.getByTestId('zoom-window').textContent()) ?? '';
  const m = /(\d\d):(\d\d):(\d\d)/.exec(text);
  if (!m) throw new Error(`no clock in the zoom chip: ${text}`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** Drags the scrubber's window by dx pixels in `steps` pointer moves, as a hand does. */
async function dragScrubber(page: Page, dx: number, steps: number): Promise<void> {
  const box = await page.getByTestId('scrubber-window').boundingBox();
  if (!box) throw new Error('no scrubber window');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps });
  await page.mouse.up();
}

/** Ticks are round: times on a whole 5 s, values by one step of 1, 2 or 5 times a power of 10. */
async function expectRoundTicks(page: Page, testId: string): Promise<void> {
  const { times, values } = await tickLabels(page.getByTestId(testId));
  expect(times.length).toBeGreaterThanOrEqual(3);
  for (const t of times) expect(t).toMatch(/^\d\d:\d\d:\d[05]$/);
  expectRoundValues(values);
}

async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1024, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, `charts-${name}-${width}.png`),
      fullPage: true,
    });
  }
}

async function openOverview(): Promise<Page> {
  const page = await openApp(ws.browser, serve.url, { width: 1280, height: 900 });
  await page.getByTestId('range-all').click();
  await shownChanged(page, null);
  return page;
}

describe('the Overview charts', () => {
  it('zoom to a dragged range, pan with the scrubber and reset to the range', async () => {
    const page = await openOverview();
    const full = await shownChanged(page, null);
    const width = full.last - full.first;
    expect(width).toBeGreaterThan(60);

    await dragChart(page, 0.3, 0.6);
    const zoomed = await shownChanged(page, full);
    await page.getByTestId('zoom-window').waitFor();
    expect(zoomed.first).toBeGreaterThan(full.first + width * 0.2);
    expect(zoomed.last).toBeLessThan(full.first + width * 0.7);
    expect(zoomed.last - zoomed.first).toBeLessThan(width * 0.45);
    // The residency chart shows the same window.
    expect((await shown(page, 'chart-resident')).first).toBe(zoomed.first);
    // A zoomed window asks the series API for its span, never more than 600 points.
    const series = await page.evaluate<Series>(
      'window.kvscope.getSeries({ rangeSec: 1e6, toTs: 2e9, maxPoints: 600 })',
    );
    expect(series.points.length).toBeLessThanOrEqual(600);
    // Grafana's round ticks, zoomed and not (recharts' own read 00:01:06, 00:01:11 and 0, 15, 45).
    await expectRoundTicks(page, 'chart-rates');
    await expectRoundTicks(page, 'chart-resident');
    await shots(page, 'zoomed');

    // Drag the scrubber's window to the right: the same width, later.
    const win = page.getByTestId('scrubber-window');
    const box = await win.boundingBox();
    const track = await page.getByTestId('time-scrubber').locator('.scrubber-track').boundingBox();
    if (!box || !track) throw new Error('no scrubber');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + track.width * 0.15, box.y + box.height / 2, {
      steps: 6,
    });
    await page.mouse.up();
    const panned = await shownChanged(page, zoomed);
    expect(panned.first).toBeGreaterThan(zoomed.first);
    expect(Math.abs(panned.last - panned.first - (zoomed.last - zoomed.first))).toBeLessThanOrEqual(
      2 * Math.max(1, (zoomed.last - zoomed.first) / 300),
    );
    await shots(page, 'panned');

    await page.getByTestId('zoom-reset').click();
    const reset = await shownChanged(page, panned);
    expect(reset).toMatchObject({ first: full.first, last: full.last });
    expect(await page.getByTestId('zoom-window').count()).toBe(0);
    expect(await page.getByTestId('range-all').getAttribute('aria-pressed')).toBe('true');
    await expectRoundTicks(page, 'chart-rates');
    await shots(page, 'reset');
    await page.context().close();
  }, 120_000);

  it('pans the scrubber by the same time for a drag of many small moves as for one', async () => {
    const page = await openOverview();
    await page.getByTestId('range-1m').click();
    const minute = await eventually(
      () => shown(page),
      (s) => Number.isFinite(s.first) && s.last - s.first <= 60,
      'the chart to draw the last minute',
    );
    await dragChart(page, 0.4, 0.7);
    await shownChanged(page, minute);
    await page.getByTestId('zoom-window').waitFor();
    const track = await page.getByTestId('time-scrubber').locator('.scrubber-track').boundingBox();
    if (!track) throw new Error('no scrubber');
    const start = await scrubberState(page);
    const secPerPx = (start.max - start.min) / track.width;
    // The test needs room on both sides: 200 px left must not hit the session's start.
    expect(start.from - 200 * secPerPx).toBeGreaterThan(start.min);

    const chip0 = await chipFrom(page);
    await dragScrubber(page, -200, 40);
    const left = await eventually(
      () => scrubberState(page),
      (s) => s.from !== start.from,
      'the window to move left',
    );
    expect(left.from - start.from).toBeCloseTo(-200 * secPerPx, 0);
    expect(Math.abs(chip0 - (await chipFrom(page)) - 200 * secPerPx)).toBeLessThanOrEqual(1);

    const chip1 = await chipFrom(page);
    await dragScrubber(page, 150, 40);
    const right = await eventually(
      () => scrubberState(page),
      (s) => s.from !== left.from,
      'the window to move right',
    );
    expect(right.from - left.from).toBeCloseTo(150 * secPerPx, 0);
    expect(Math.abs((await chipFrom(page)) - chip1 - 150 * secPerPx)).toBeLessThanOrEqual(1);
    await page.context().close();
  }, 120_000);

  it('zooms to the edge when a drag ends past it, and drops a drag on Escape', async () => {
    const page = await openOverview();
    const full = await shownChanged(page, null);
    // Escape in the middle of a drag: no zoom, no events view.
    const box = await page
      .getByTestId('chart-rates')
      .locator('.recharts-cartesian-grid')
      .boundingBox();
    if (!box) throw new Error('the rate chart has no plot');
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, y, { steps: 4 });
    await page.keyboard.press('Escape');
    await page.mouse.up();
    expect(await page.getByTestId('zoom-window').count()).toBe(0);
    expect(page.url()).not.toMatch(/#events/);
    // Past the right edge of the plot: the window ends with the data.
    await dragChart(page, 0.7, 1.2);
    const zoomed = await shownChanged(page, full);
    expect(zoomed.last).toBe(full.last);
    expect(zoomed.first).toBeGreaterThan(full.first + (full.last - full.first) * 0.6);
    await page.context().close();
  }, 60_000);

  it('opens the events before a clicked point, by a deep link the Events view honours', async () => {
    const page = await openOverview();
    const box = await page
      .getByTestId('chart-rates')
      .locator('.recharts-cartesian-grid')
      .boundingBox();
    if (!box) throw new Error('the rate chart has no plot');
    // Hover first, as a hand does: the tooltip says which point a click picks.
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await page
      .getByTestId('chart-rates')
      .locator('.recharts-tooltip-wrapper')
      .getByText(/stored/)
      .first()
      .waitFor();
    await page.mouse.down();
    await page.mouse.up();
    await page.getByTestId('event-at').waitFor();
    const at = Number(/#events\?at=([\d.e+-]+)/.exec(page.url())?.[1]);
    expect(Number.isFinite(at)).toBe(true);
    const rows = await page.evaluate<EventPage>(
      `window.kvscope.queryEvents({ offset: 0, limit: 50, beforeTs: ${at} })`,
    );
    const all = await page.evaluate<EventPage>(
      'window.kvscope.queryEvents({ offset: 0, limit: 1 })',
    );
    expect(rows.total).toBeGreaterThan(0);
    expect(rows.total).toBeLessThan(all.total);
    expect(rows.rows.every((r) => r.ts < at)).toBe(true);
    await eventually(
      () => page.getByTestId('event-count').textContent(),
      (t) => t?.replace(/\D/g, '') === String(rows.total),
      'the log to count the events before the point',
    );
    // The rows' "+N" (more hashes) make one column, however long each row's first hash is.
    const ends = await page
      .locator('[data-testid="event-row"] .hash-cell .more')
      .evaluateAll((els: { getBoundingClientRect(): { right: number } }[]) =>
        els.map((e) => Math.round(e.getBoundingClientRect().right)),
      );
    expect(ends.length).toBeGreaterThan(3);
    expect(new Set(ends).size, `"+N" ends at ${ends.join(', ')}`).toBe(1);
    await shots(page, 'events-at');
    // The link itself opens the same view (a reload, or a link pasted elsewhere).
    await page.reload();
    await page.getByTestId('event-at').waitFor({ timeout: 20_000 });
    await page.getByTestId('event-at').getByRole('button').click();
    await eventually(
      () => page.getByTestId('event-count').textContent(),
      (t) => t?.replace(/\D/g, '') === String(all.total),
      'the log to count every event again',
    );
    expect(page.url()).toMatch(/#events$/);
    await page.context().close();
  }, 60_000);

  it('draws resident blocks per source, adding up to the resident total', async () => {
    const page = await openOverview();
    await page.getByTestId('resident-by-source').click();
    const card = page.getByTestId('chart-resident');
    await card.getByRole('heading', { name: 'Resident blocks by source' }).waitFor();
    const legend = await card.locator('.legend-item').allTextContents();
    // The capture's ranks are its two sources, named from the file.
    expect(legend).toEqual(['all', 'two-ranks.jsonl', 'two-ranks.jsonl#1']);
    const last = await eventually(
      async () =>
        JSON.parse((await card.getAttribute('data-last-point')) ?? '{}') as Record<string, number>,
      (p) => 'residentAll' in p,
      'the per-source residency',
    );
    expect(last['residentBy.0']).toBeGreaterThan(0);
    expect(last['residentBy.1']).toBeGreaterThan(0);
    expect(last.residentAll).toBe((last['residentBy.0'] ?? 0) + (last['residentBy.1'] ?? 0));
    expect(last.residentAll).toBe(await kpi(page, 'resident-blocks'));
    await shots(page, 'resident-by-source');
    await page.context().close();
  }, 60_000);

  it('exports a chart as a PNG that carries its legend above the plot', async () => {
    const page = await openOverview();
    const download = page.waitForEvent('download');
    await page.getByTestId('chart-rates-png').click();
    const file = await (await download).path();
    const png = await readFile(file);
    await writeFile(path.join(SCREENSHOT_DIR, 'charts-exported-chart.png'), png);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // Each legend swatch's colour is in the image's head, above the plot.
    const legend = JSON.parse(
      (await page
        .getByTestId('chart-rates')
        .locator('[data-export-meta]')
        .getAttribute('data-export-meta')) ?? '{}',
    ) as { legend: { color: string }[]; range: string; sources: string };
    expect(legend.range).toMatch(/\d{4}-\d\d-\d\d .* – .*per point/);
    expect(legend.sources.split(', ').length).toBe(2);
    const svg = await page.getByTestId('chart-rates').locator('svg.recharts-surface').boundingBox();
    if (!svg) throw new Error('the rate chart has no plot');
    const found = await headHasColours(
      page,
      png,
      svg.height,
      legend.legend.map((l) => l.color),
    );
    expect(found.length).toBeGreaterThan(2);
    expect(found.every(Boolean)).toBe(true);
    // The last x-axis label, centred on the plot's right edge, is whole: nothing reaches the
    // image's right edge (4 px at scale 2), where it would be cut.
    expect(await rightEdgeIsBlank(page, png, 8)).toBe(true);
    await page.context().close();
  }, 60_000);

  it('exports the rates as CSV with ISO 8601 times and the sources by name', async () => {
    const page = await openOverview();
    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const csv = await readFile(await (await download).path(), 'utf8');
    const [head = '', row = ''] = csv.split('\n');
    expect(head.startsWith('time_s,time,bin_s,stored_per_s,removed_per_s,')).toBe(true);
    expect(head).toMatch(/resident_by_source\[[^\]]+\]/);
    expect(row).toMatch(/^[\d.]+,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,/);
    await page.context().close();
  }, 60_000);
});
