// "A crash loses nothing already received": the real `kvscope serve` takes a fast `kvscope sim`
// stream and is killed with SIGKILL at a random moment; the recording it leaves holds what the
// screen showed, less no more than what the recording's own status said was still on its way to
// the disk. Then the next start lists that recording and opens it in two clicks.
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../../electron/session/read-session';
import { listRecordingFiles } from '../../electron/session/recording-retention';
import { killUnderLoad, type CrashResult } from '../support/crash-run';
import {
  ensureBuilt,
  kpi,
  launchChromium,
  openApp,
  removeDir,
  showView,
  startServe,
  tempDir,
} from '../support/e2e-harness';

let dir = '';
let browser: Browser | undefined;

beforeAll(async () => {
  ensureBuilt();
  dir = await tempDir('crash');
});

afterAll(async () => {
  await browser?.close();
  await removeDir(dir);
});

/** The file holds every event shown except those the shown status counted as behind or dropped. */
function expectWithinBound(r: CrashResult): void {
  const allowed = r.shownRecording.behindRecords + r.shownRecording.droppedRecords;
  expect(r.shownEvents).toBeGreaterThan(0);
  expect(r.fileEvents).toBeGreaterThanOrEqual(r.shownEvents - allowed);
  expect(r.lostEvents).toBeLessThanOrEqual(allowed);
  // The cut end is reported, not hidden: first, as file-level problems are listed.
  expect(r.problems[0]).toMatch(/file ends early/);
}

describe('kill -9 under load', () => {
  it('at 3,000 batches/s the recording left behind holds what was shown, less at most what it said was behind', async () => {
    const r = await killUnderLoad({
      rate: 3000,
      dataDir: path.join(dir, 'at-3000'),
      warmMs: 1500,
      jitterMs: 2000,
    });
    expectWithinBound(r);
    expect(r.shownRecording.droppedRecords).toBe(0);
  }, 60_000);

  it('at 18,000 batches/s too, and the serve process stays within bounded memory', async () => {
    const r = await killUnderLoad({
      rate: 18_000,
      dataDir: path.join(dir, 'at-18000'),
      warmMs: 3000,
      jitterMs: 2000,
    });
    expectWithinBound(r);
    // The recording's queue is bounded (32 MiB of lines): it cannot hold more than that behind.
    expect(r.shownRecording.behindRecords).toBeLessThan(200_000);
    // Before the bounded queue the backlog grew in RAM to 1.6 GB within seconds at this rate.
    if (r.peakRssMb !== null) expect(r.peakRssMb).toBeLessThan(1200);
  }, 60_000);

  it('the next start lists the recording the crash left and opens it in two clicks', async () => {
    const dataDir = path.join(dir, 'at-3000');
    const [left] = await listRecordingFiles(path.join(dataDir, 'recordings'));
    if (!left) throw new Error('the first test left no recording');
    const inFile = (await readSession(left.path, () => undefined)).counts.events;
    const serve = await startServe(dataDir, ['--demo']);
    try {
      browser = await launchChromium();
      const page = await openApp(browser, serve.url);
      await showView(page, 'Connections');
      const list = page.getByTestId('recent-recordings');
      const items = list.getByTestId('recording-item');
      // Newest first: the live one (recording now), then the one the crash left.
      await expect.poll(() => items.count()).toBe(2);
      await expect.poll(() => items.first().textContent()).toMatch(/recording now/);
      await items
        .nth(1)
        .getByRole('button', { name: /^Open the recording of/ })
        .click();
      await page.getByTestId('badge-session').waitFor();
      expect(await page.getByTestId('view-title').textContent()).toBe(left.name);
      await showView(page, 'Overview');
      // Opening reads the whole recording (some 10,000 batches) while other tests run beside it:
      // legitimately slow, so the wait is one fit for opening a file, as the sessions tests give.
      await expect.poll(() => kpi(page, 'events'), { timeout: 30_000 }).toBe(inFile);
    } finally {
      await serve.stop();
    }
  }, 90_000);
});
