// The Insights of a session whose stream lost batches: the what-if's peak resident count, which
// stands in for the engine's capacity, counts the blocks evicted in the lost batches as still
// resident, and its panel says so (a field run read a peak of 3,593 for a 2,048-block pool, with
// no word beside it). In real Chromium against `kvscope serve`.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCREENSHOT_DIR, openApp, useE2eWorkspace } from '../support/e2e-harness';
import { lostBatchesSession } from '../support/lost-session';

const ws = useE2eWorkspace('insights-lost');

describe('the what-if of a stream that lost batches', () => {
  for (const lost of [0, 3]) {
    it(`${lost > 0 ? 'says' : 'does not say'} that its peak may be past the real capacity (${lost} lost)`, async () => {
      const file = await ws.file(`lost-${lost}.kvscope.jsonl`, lostBatchesSession(lost));
      const serve = await ws.serve(`data-${lost}`, ['--open', file]);
      const page = await openApp(ws.browser, serve.url, { width: 1280, height: 900 });
      await page.getByTestId('tab-insights').click();
      const panel = page.getByTestId('what-if').first();
      await panel.waitFor({ timeout: 20_000 });
      const text = (await panel.textContent()) ?? '';
      expect(text).toContain('Based on the peak resident count');
      if (lost > 0) {
        expect(text).toContain('blocks evicted in them still count as resident');
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'insights-lost-what-if.png') });
      } else expect(text).not.toContain('lost');
      await page.context().close();
    }, 90_000);
  }
});
