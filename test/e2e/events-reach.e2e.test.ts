// The event log's reach, in real Chromium against `kvscope serve` with an opened capture of more
// events than the log keeps, on a relative clock that runs negative: a link to a time the log
// still holds shows the events before it (after a reload too), one to a time whose events left
// the log says so, not "No events yet".
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventPage } from '../../shared/api-types';
import {
  SCREENSHOT_DIR,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { eventually } from '../support/wait-for';

/** Past the 50,000 events the log keeps in memory. */
const EVENTS = 60_000;
/** One event a millisecond, ending just before zero: ts runs from -60 s to -0.001 s. */
const tsOf = (i: number): number => (i - EVENTS) / 1000;

const ws = useE2eWorkspace('events-reach');
let serve: ServeProcess;
let page: Page;

beforeAll(async () => {
  const capture = path.join(ws.dir, 'relative.jsonl');
  const lines = Array.from(
    { length: EVENTS },
    (_, i) =>
      `{"ts":${tsOf(i)},"seq":${i},"dp_rank":0,"type":"BlockStored","block_hashes":[${1000 + i}],"parent_block_hash":null,"token_count":16,"block_size":16,"lora_id":null,"medium":"GPU"}`,
  );
  await writeFile(capture, `${lines.join('\n')}\n`);
  serve = await ws.serve('data', ['--import', capture]);
  page = await openApp(ws.browser, serve.url);
}, 120_000);

const eventCount = (): Promise<string | null> => page.getByTestId('event-count').textContent();

describe('the event log before a time, in Chromium', () => {
  it('follows a link to a negative time on a relative clock, after a reload too', async () => {
    const all = await page.evaluate<EventPage>(
      'window.kvscope.queryEvents({ offset: 0, limit: 1 })',
    );
    // The log holds the newest 50,000: from tsOf(10,000) = -50 s on.
    expect(all.total).toBe(50_000);
    const at = -20;
    const before = await page.evaluate<EventPage>(
      `window.kvscope.queryEvents({ offset: 0, limit: 1, beforeTs: ${at} })`,
    );
    // -50 s to -20.001 s, a millisecond apart.
    expect(before.total).toBe(30_000);
    await page.goto(`${serve.url}#events?at=${at}`);
    await page.reload();
    await page.getByTestId('event-at').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('event-at').textContent()).toContain('t-20');
    // Of the newest the log keeps, as it says: not every event of the file before -20 s.
    await eventually(
      eventCount,
      (t) => t?.startsWith('30,000 events of the newest 50,000 kept') ?? false,
      'the events before -20 s',
    );
    expect(page.url()).toMatch(/#events\?at=-20$/);
    // Without the time, the count says the log keeps the newest (the file has 60,000).
    await page.getByRole('button', { name: 'Show the events of every time' }).click();
    await eventually(eventCount, (t) => t === '50,000 events, the newest kept', 'the whole log');
  }, 60_000);

  it('says the events before a time have left the log, and from when it holds them', async () => {
    await page.goto(`${serve.url}#events?at=-55`);
    await page.reload();
    const empty = page.getByTestId('event-empty');
    await eventually(
      () => empty.textContent(),
      // The whole note: what has every event is named once the first frame says what is open.
      (t) => (t?.includes('have left the event log') && t.includes('has every one')) ?? false,
      'the note that the events before -55 s left the log',
    );
    const text = (await empty.textContent()) ?? '';
    expect(text).toContain('before t-55.000s');
    // The oldest it holds: tsOf(10,000).
    expect(text).toContain('from t-50.000s on (the file opened has every one)');
    expect(text).not.toContain('No events');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'events-before-reach.png') });
    // A filter that matches nothing says the same: the events before -50 s left the log.
    const none = await page.evaluate<EventPage>(
      'window.kvscope.queryEvents({ offset: 0, limit: 1, beforeTs: -50, types: ["BlockRemoved"] })',
    );
    expect(none.total).toBe(0);
    expect(none.heldFromTs).toBe(-50);
  }, 60_000);
});
