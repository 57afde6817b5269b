// The Events table's cells at a common window width (1280 px), in real Chromium against
// `kvscope serve --open`: two sources whose names differ only at their end (two ports of one
// host) stay told apart when their cell cuts them, an AllBlocksCleared's type is shown whole, and
// with no event type ticked the list is empty (it listed every event).
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import type { EventRecord } from '../../shared/events';
import { cleared, stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  clickRow,
  openApp,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

const ws = useE2eWorkspace('event-columns');
let serve: ServeProcess;
let page: Page;

const SOURCES = ['tcp://127.0.0.1:46200', 'tcp://127.0.0.1:46210'];

beforeAll(async () => {
  const T0 = 1_767_225_600;
  const header = makeHeader(
    'test',
    new Date(T0 * 1000),
    SOURCES.map((id) => ({ id, name: id, endpoint: id })),
  );
  const lines = [JSON.stringify(header)];
  SOURCES.forEach((source, i) => {
    const recs: EventRecord[] = [
      stored(source, T0 + i, [`${10 + i}`]),
      stored(source, T0 + i + 0.5, [`${20 + i}`]),
      cleared(source, T0 + i + 1),
    ];
    recs.forEach((rec, seq) => lines.push(encodeRecord({ k: 'event', rec: { ...rec, seq } })));
  });
  // An offload of block 10 to the CPU tier (vLLM's connector): no parent, no token ids.
  const offload = stored(SOURCES[0] as string, T0 + 3, ['10'], null, 'CPU');
  if (offload.event.type === 'BlockStored') offload.event.token_count = 0;
  lines.push(encodeRecord({ k: 'event', rec: { ...offload, seq: 3 } }));
  const file = await ws.file('two-ports.kvscope.jsonl.gz', gzipSync(`${lines.join('\n')}\n`));
  serve = await ws.serve('data', ['--open', file]);
  page = await openApp(ws.browser, serve.url, { width: 1280, height: 700 });
}, 60_000);

afterAll(async () => {
  await page?.context().close();
});

describe('the events table at 1280 px', () => {
  it('keeps the ends that tell two sources apart, shows AllBlocksCleared whole, and lists nothing with no type ticked', async () => {
    await showView(page, 'Events');
    const rows = page.getByTestId('event-row');
    await expect.poll(() => rows.count()).toBe(7);
    // The page's elements, as far as this reads them (the test's types have no DOM).
    interface Box {
      scrollWidth: number;
      clientWidth: number;
      textContent: string | null;
      title: string;
      querySelector(s: string): Box | null;
      querySelectorAll(s: string): Iterable<Box>;
    }
    const cells = await rows.evaluateAll((els) =>
      (els as unknown as Box[]).map((row) => {
        const [, source, , type] = [...row.querySelectorAll('[role=cell]')];
        const cut = (el: Box | undefined) =>
          el !== undefined &&
          [el, ...el.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth);
        return {
          // What shows: the head's visible part is cut; the tail is whole.
          tail: source?.querySelector('.middle-cut-tail')?.textContent ?? null,
          title: source?.title ?? '',
          type: type?.textContent ?? '',
          typeCut: cut(type),
        };
      }),
    );
    for (const c of cells) expect(c.tail).toBe(c.title.endsWith('46200') ? '.1:46200' : '.1:46210');
    expect(new Set(cells.map((c) => c.tail)).size).toBe(2);
    const clears = cells.filter((c) => c.type === 'AllBlocksCleared');
    expect(clears).toHaveLength(2);
    expect(clears.map((c) => c.typeCut)).toEqual([false, false]);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'event-columns-1280.png') });

    // The offload's detail says what it is, not "a root".
    await clickRow(rows.first());
    await expect
      .poll(() => page.getByTestId('event-detail-parent').textContent())
      .toBe('none: an offload (to CPU) is a set of blocks, not a chain');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'event-detail-offload.png') });
    // "Show in Chains" finds its block's chains there, then back to the Events.
    await page.getByTestId('event-open-chain').click();
    await expect
      .poll(() => page.getByTestId('hash-matches').locator('.hash').first().getAttribute('title'))
      .toBe('10');
    expect(page.url()).toMatch(/#chains\?hash=10$/);
    await showView(page, 'Events');
    await expect.poll(() => rows.count()).toBe(7);
    await clickRow(rows.nth(2));
    await expect
      .poll(() => page.getByTestId('event-detail-parent').textContent())
      .toBe('none (a root)');
    await page.getByRole('button', { name: 'Close the event detail' }).click();
    // A clear has no tokens, and its detail says nothing of them (it had an empty "Tokens" row).
    await clickRow(rows.nth(1));
    const detail = page.getByTestId('event-detail');
    await expect.poll(() => detail.textContent()).toContain('every block of the source');
    expect(await detail.locator('dt').allTextContents()).not.toContain('Tokens');
    await page.getByRole('button', { name: 'Close the event detail' }).click();

    for (const t of ['BlockStored', 'BlockRemoved', 'AllBlocksCleared'])
      await page.getByTestId(`event-type-${t}`).uncheck();
    await expect.poll(() => page.getByTestId('event-count').textContent()).toBe('0 events');
    expect(await rows.count()).toBe(0);
  }, 60_000);
});
