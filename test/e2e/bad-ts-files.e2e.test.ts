// A file none of whose events has a usable ts (epoch nanoseconds, say), in real Chromium against
// `kvscope serve` and through the built `kvscope analyze`: the open and the analysis refuse it
// alike, with one reason (how many event errors, and the first problem with its hint), for a
// session and for a capture; the live view stays as it was.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { stored } from '../model/helpers';
import { CLI } from '../support/built-app';
import {
  SCREENSHOT_DIR,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { sessionBytes } from '../support/session-bytes';

const run = promisify(execFile);
const REASON =
  'no events could be read (3 event errors); the first problem: line 2: batch ts 10000000000000000 is out of range (|ts| must be at most 1e11 seconds: is the publisher sending milliseconds or nanoseconds?) (kept as an event error)';

const ws = useE2eWorkspace('bad-ts');
let serve: ServeProcess;
let page: Page;

beforeAll(async () => {
  serve = await ws.serve('data');
  page = await openApp(ws.browser, serve.url);
}, 120_000);

/** `kvscope analyze FILE`'s exit code and stderr. */
async function analyze(file: string): Promise<{ code: number; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, 'analyze', file]);
    return { code: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

/** Opens `file` through the header's button (a file chooser, then an upload). */
async function openInPage(button: 'Open session' | 'Import capture', file: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: button }).click();
  await (await chooser).setFiles(file);
}

describe('a file whose every ts is bad', () => {
  it('is refused by the open and by analyze with the same reason, a session', async () => {
    const file = path.join(ws.dir, 'nanoseconds.kvscope.jsonl.gz');
    const source = { id: 'a', name: 'gpu-a', endpoint: 'tcp://10.0.0.1:5557' };
    const events = [0, 1, 2].map((i) => ({ ...stored('a', 1e16 + i, [`${i}1`]), seq: i }));
    await writeFile(file, sessionBytes([source], events));

    const cli = await analyze(file);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(`kvscope: could not analyze ${file}: ${REASON}\n`);

    const title = await page.getByTestId('view-title').getAttribute('title');
    await openInPage('Open session', file);
    const notice = page.getByTestId('notice').filter({ hasText: 'could not open' });
    await expect
      .poll(() => notice.textContent(), { timeout: 20_000 })
      .toBe(`could not open nanoseconds.kvscope.jsonl.gz: ${REASON}Dismiss`);
    expect(await page.getByTestId('badge-session').count()).toBe(0);
    expect(await page.getByTestId('view-title').getAttribute('title')).toBe(title);
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `error-bad-ts-${width}.png`) });
    }
    await notice.getByRole('button', { name: 'Dismiss the notice' }).click();
  }, 60_000);

  it('is refused by the import and by analyze with the same reason, a capture', async () => {
    const file = path.join(ws.dir, 'nanoseconds.jsonl');
    const lines = [0, 1, 2].map(
      (i) =>
        `{"ts": 1e16, "type": "BlockStored", "block_hashes": [${i + 10}], "parent_block_hash": null, "block_size": 16, "token_count": 16}`,
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    // The capture's first line is line 1, and it is a capture (never "not a capture").
    const reason = REASON.replace('line 2:', 'line 1:');

    const cli = await analyze(file);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(`kvscope: could not analyze ${file}: ${reason}\n`);

    await openInPage('Import capture', file);
    await expect
      .poll(
        () => page.getByTestId('notice').filter({ hasText: 'could not import' }).textContent(),
        {
          timeout: 20_000,
        },
      )
      .toBe(`could not import nanoseconds.jsonl: ${reason}Dismiss`);
    expect(await page.getByTestId('badge-session').count()).toBe(0);
  }, 60_000);
});
