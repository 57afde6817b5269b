// A session of more sources than a report lists (MAX_REPORT_SOURCES): the Insights in Chromium
// count every source in their totals and say that the lists below name only the first; a line
// about the sources names a few of them and counts the rest.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_REPORT_SOURCES } from '../../shared/analysis-report';
import { SCREENSHOT_DIR, openApp, setTheme, useE2eWorkspace } from '../support/e2e-harness';

const SOURCES = MAX_REPORT_SOURCES + 44;

/** A session whose sources each store one block of their own. */
function manySources(): string {
  const header = {
    format: 'kvscope-session',
    version: 2,
    app: 'e2e',
    startedAt: '2026-01-01T00:00:00.000Z',
    sources: [],
  };
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < SOURCES; i += 1)
    lines.push(
      JSON.stringify({
        k: 'event',
        source: `engine-${i}`,
        seq: 0,
        ts: 1_767_225_600 + i,
        dp_rank: 0,
        idx: 0,
        event: {
          type: 'BlockStored',
          block_hashes: [`${1000 + i}`],
          block_size: 16,
          medium: 'GPU',
        },
      }),
    );
  return `${lines.join('\n')}\n`;
}

const ws = useE2eWorkspace('insights-many-sources');

describe('the Insights of more sources than a report lists', () => {
  it('count them all and say the lists name the first', async () => {
    const file = await ws.file('many.kvscope.jsonl', manySources());
    const serve = await ws.serve('data', ['--open', file]);
    const page = await openApp(ws.browser, serve.url, { width: 1440, height: 900 });
    await page.getByTestId('tab-insights').click();
    await expect
      .poll(() => page.getByTestId('insight-new-stores').getAttribute('data-value'), {
        timeout: 20_000,
      })
      .toBe(String(SOURCES));
    const cut = (await page.getByTestId('lists-cut').textContent()) ?? '';
    expect(cut).toContain(`the first ${MAX_REPORT_SOURCES} of ${SOURCES} sources`);
    expect(cut).toContain(`the first ${MAX_REPORT_SOURCES} of ${SOURCES} source media`);
    // None has evicted: the line says so naming a few and counting the rest, not a wall of names.
    const unsettled = (await page.getByTestId('what-if-unsettled').textContent()) ?? '';
    expect(unsettled).toContain(
      `engine-5 GPU and ${MAX_REPORT_SOURCES - 6} more: no re-store so far`,
    );
    expect(unsettled).not.toContain('engine-6 GPU');
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `insights-many-sources-${theme}.png`),
      });
    }
    await page.context().close();
  }, 90_000);
});
