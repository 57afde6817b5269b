// The hash search finds what its box promises, in real Chromium against `kvscope serve` with an
// imported capture: a hex prefix of an integer hash (the u64 as hex(h) writes it, 0x or not, any
// case) in the Events filter and in the Chains search, beside the decimal prefixes engines log.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  openApp,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

// 0xffffffffffffffc5, 0xf000000000000000, 0x8000000000000001; 0x12d687, 0x74cbb1.
const BIG = ['18446744073709551557', '17293822569102704640', '9223372036854775809'];
const SMALL = ['1234567', '7654321'];

const ws = useE2eWorkspace('hash-search');
let serve: ServeProcess;
let page: Page;

beforeAll(async () => {
  const capture = path.join(ws.dir, 'hex-capture.jsonl');
  await writeFile(
    capture,
    [
      `{"ts": 1764480000.25, "type": "BlockStored", "block_hashes": [${BIG[0]}, ${BIG[1]}], "parent_block_hash": null, "block_size": 16, "lora_id": null, "token_count": 32}`,
      `{"ts": 1764480000.5, "type": "BlockStored", "block_hashes": [${BIG[2]}, ${SMALL[0]}, ${SMALL[1]}], "parent_block_hash": ${BIG[1]}, "block_size": 16, "lora_id": null, "token_count": 48}`,
      `{"ts": 1764480001.0, "type": "BlockRemoved", "block_hashes": [${SMALL[1]}]}`,
      '',
    ].join('\n'),
  );
  serve = await ws.serve('data', ['--import', capture]);
  page = await openApp(ws.browser, serve.url);
}, 120_000);

/** The seqs of the event rows drawn. */
function eventSeqs(): Promise<number[]> {
  return page
    .getByTestId('event-row')
    .evaluateAll((rows) =>
      rows.map((r) => Number(r.querySelector('[role=cell]:nth-child(3)')?.textContent)),
    );
}

describe('hash search in Chromium', () => {
  it('filters the events by a hex prefix of an integer hash, as a block or as a parent', async () => {
    await showView(page, 'Events');
    const box = page.getByTestId('event-hash');
    // 0xF0000: the second big hash alone (a block of the first batch, seq 0, the parent of seq 1).
    await box.fill('0xF0000');
    await expect.poll(eventSeqs, { timeout: 20_000 }).toEqual([1, 0]);
    // Without 0x, the letters say hex: 0xffffffffffffffc5's prefix finds seq 0 alone.
    await box.fill('ffffffffff');
    await expect.poll(eventSeqs, { timeout: 20_000 }).toEqual([0]);
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `events-hex-search-${width}.png`) });
    }
    // Digits alone stay decimal: 7654 is a prefix of 7654321 (seqs 1 and 2), not hex 0x7654.
    await box.fill('7654');
    await expect.poll(eventSeqs, { timeout: 20_000 }).toEqual([2, 1]);
    await box.fill('');
  }, 60_000);

  it('finds an integer hash in the Chains search by a hex prefix of it', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await showView(page, 'Chains');
    await page.getByTestId('chain-search').fill('0x8000000000');
    const hits = page.getByTestId('hash-matches').getByRole('listitem');
    await expect
      .poll(() => hits.locator('.hash').first().getAttribute('title'), { timeout: 20_000 })
      .toBe(BIG[2]);
    expect(await hits.count()).toBe(1);
    await page.getByTestId('chain-search').fill('');
  }, 60_000);
});
