// A paused event log keeps its rows on screen when a busy stream pushes them out of the event log
// (it keeps the newest 50,000 in memory): at 17,000 events/s the rows a reader had paused on were
// gone in 3 s, the list emptied under them (found in a field run). In real Chromium against
// `kvscope serve` and a live stream.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RING_SIZE } from '../../electron/model/event-ring';
import { ChainStream } from '../support/e2e-chain-stream';
import {
  SCREENSHOT_DIR,
  openApp,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { warmUp } from '../support/e2e-sim';
import { eventually } from '../support/wait-for';

const ws = useE2eWorkspace('events-kept');
let serve: ServeProcess;
let stream: ChainStream;

beforeAll(async () => {
  stream = await ChainStream.start();
  serve = await ws.serve('data', ['--endpoint', stream.endpoint]);
}, 120_000);

afterAll(async () => {
  await stream?.close();
});

describe('a paused event log', () => {
  it('keeps the rows on screen after they leave the event log, and says they left', async () => {
    const page = await openApp(ws.browser, serve.url);
    await warmUp(page, stream, stream.endpoint);
    await stream.publish(300);
    await showView(page, 'Events');
    const seqs = () =>
      page
        .getByTestId('event-row')
        .evaluateAll((rows) =>
          rows.map((r) =>
            Number(r.querySelector('[role=cell]:nth-child(3)')?.textContent?.replace(/,/g, '')),
          ),
        );
    await expect.poll(async () => (await seqs()).length, { timeout: 20_000 }).toBeGreaterThan(10);
    await page.getByTestId('event-freeze').click();
    await expect.poll(() => page.getByTestId('event-count').textContent()).toContain('(paused)');
    const paused = await seqs();

    // More events than the log keeps: every row on screen leaves it (one event a batch).
    const newest = () =>
      page.evaluate<number>(
        'window.kvscope.queryEvents({ offset: 0, limit: 1 }).then((p) => p.newest)',
      );
    const from = await newest();
    for (let sent = 0; sent < DEFAULT_RING_SIZE + 5_000; sent += 5_000) await stream.publish(5_000);
    await eventually(newest, (n) => n >= from + DEFAULT_RING_SIZE + 1_000, 'the log to turn over');
    const left = page.getByTestId('event-left');
    await expect
      .poll(() => left.textContent(), { timeout: 20_000 })
      .toMatch(/older events left the log since the hold \(the [\d,]+ shown stay\)/);
    // The log holds none of them now, and the list still shows them, in place.
    const held = await page.evaluate<number>(
      `window.kvscope.queryEvents({ offset: 0, limit: 1, upTo: ${Math.max(...paused)} }).then((p) => p.total)`,
    );
    expect(held).toBe(0);
    expect(await seqs()).toEqual(paused);
    // Every held row gone from a full log: the newer count is a floor (more came than it holds).
    expect(await page.getByTestId('event-newer').textContent()).toBe(
      `▲ ${DEFAULT_RING_SIZE.toLocaleString('en-US')}+ newer events`,
    );
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'events-paused-kept-1280.png') });

    // To the bottom of the rows kept, a refresh there, and back up: every row is still there (the
    // refresh at the bottom kept only the rows it asked for, and the list emptied going up).
    const scrollTo = (top: string) =>
      page.evaluate<void>(
        `(() => { const el = document.querySelector('[data-testid="event-rows"]'); el.scrollTop = ${top}; el.dispatchEvent(new Event('scroll')); })()`,
      );
    const count = await page.getByTestId('event-count').textContent();
    await scrollTo('el.scrollHeight');
    await page.waitForTimeout(1_500);
    await scrollTo('el.scrollTop - 100');
    await page.waitForTimeout(1_500);
    await scrollTo('0');
    await expect.poll(seqs).toEqual(paused);
    expect(await page.getByTestId('event-count').textContent()).toBe(count);

    // Resumed, the list goes back to the log's newest events.
    await page.getByTestId('event-freeze').click();
    await expect
      .poll(async () => Math.min(...(await seqs())), { timeout: 20_000 })
      .toBeGreaterThan(Math.max(...paused));
    await page.context().close();
  }, 120_000);
});
