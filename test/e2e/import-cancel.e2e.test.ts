// Cancelling an import in the browser: the progress bar's Cancel while the service reads a big
// capture stops it, the live view stays, and the notice area says "Import cancelled".
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  fileProgress,
  openApp,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { eventually } from '../support/wait-for';

const LINES = 150_000;

const ws = useE2eWorkspace('import-cancel');
let file: string;
let serve: ServeProcess;
const pages: Page[] = [];

/** A seed-script capture of LINES stores of pseudo-random 64-bit hashes (gzip cannot shrink it much). */
function bigCapture(): Buffer {
  let x = 0x9e3779b97f4a7c15n;
  const next = () => {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return x.toString();
  };
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    lines.push(
      `{"ts":${1_700_000_000 + i / 100},"type":"BlockStored","block_hashes":[${next()},${next()}],"parent_block_hash":null,"token_ids":[1,2,3],"block_size":16,"lora_id":null,"medium":"GPU"}`,
    );
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

beforeAll(async () => {
  file = await ws.file('big-capture.jsonl.gz', bigCapture());
  // No demo and no engine: the live view stays empty, so "the view stayed" is plain to check.
  serve = await ws.serve('data', ['--endpoint', 'tcp://127.0.0.1:9']);
  for (const width of [1024, 1440])
    pages.push(await openApp(ws.browser, serve.url, { width, height: 800 }));
}, 120_000);

describe('cancelling an import', () => {
  it('stops the reading, keeps the live view and says "Import cancelled"', async () => {
    for (const page of pages) {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Import capture' }).click();
      await (await chooser).setFiles(file);
      await eventually(
        () => fileProgress(page),
        (p) => p !== null && p.label.startsWith('Reading') && p.percent > 0,
        'the service to read the capture',
        60_000,
      );
      await page.getByTestId('progress-cancel').click();
      const notice = page.getByTestId('notice').filter({ hasText: 'Import cancelled' });
      await notice.waitFor({ timeout: 20_000 });
      expect(await notice.textContent()).toContain('big-capture.jsonl.gz was not imported');
      // At once: an info notice goes by itself after 5 s.
      const width = page.viewportSize()?.width ?? 0;
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `import-cancelled-${width}.png`) });
      await expect.poll(() => fileProgress(page), { timeout: 20_000 }).toBeNull();
      expect(await page.getByTestId('badge-session').count()).toBe(0);
      expect(await page.getByTestId('view-title').textContent()).toContain('Live');
    }
  }, 150_000);
});
