// A hybrid model's capture in Chromium: vLLM publishes each block once per KV cache group, and the
// Insights say which groups the source named and that their figures count the groups together,
// or, with `serve --group N`, that they are group N's alone.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOT_DIR,
  openApp,
  useE2eWorkspace,
  type ServeProcess,
} from '../support/e2e-harness';

/** Each of `requests` two-block stores, cached in the full-attention and sliding-window groups. */
function hybridCapture(requests: number): string {
  const lines: string[] = [];
  for (let i = 0; i < requests; i += 1) {
    const ts = 1_767_225_600 + i;
    const hashes = `[${2 * i + 1000},${2 * i + 1001}]`;
    for (const [group, kind] of [
      [0, 'full_attention'],
      [1, 'sliding_window'],
    ] as const)
      lines.push(
        `{"ts":${ts},"seq":${i},"idx":${group},"type":"BlockStored","block_hashes":${hashes},"parent_block_hash":null,"token_count":32,"block_size":16,"lora_id":null,"medium":"GPU","group_idx":${group},"kv_cache_spec_kind":"${kind}"${group === 1 ? ',"kv_cache_spec_sliding_window":128' : ''}}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

const ws = useE2eWorkspace('kv-cache-groups');
let serve: ServeProcess;
let groupOne: ServeProcess;

beforeAll(async () => {
  const capture = await ws.file('hybrid.jsonl', hybridCapture(10));
  serve = await ws.serve('data', ['--import', capture]);
  // The same data folder: its open cache may hold the capture's state for every group together.
  groupOne = await ws.serve('data', ['--import', capture, '--group', '1']);
}, 120_000);

describe('the Insights of a hybrid model', () => {
  it('name its KV cache groups and say the figures count them together', async () => {
    const page = await openApp(ws.browser, serve.url, { width: 1280, height: 800 });
    await page.getByTestId('tab-insights').click();
    const note = page.getByTestId('kv-cache-groups');
    await expect.poll(() => note.count(), { timeout: 20_000 }).toBe(1);
    expect(await note.textContent()).toMatch(
      /hybrid\.jsonl publishes 2 KV cache groups \(0 full_attention, 1 sliding_window 128\): a hybrid model, each block published once per group\..*a store into a second group reads as a hit.*kvscope analyze --group N/,
    );
    // Counted together: each request's second group reads as 2 hits.
    expect(await page.getByTestId('insight-hit-ratio').getAttribute('data-value')).toBe('0.5');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'insights-kv-cache-groups.png') });
    await page.context().close();
  }, 60_000);

  it("say the figures are one group's alone when serve runs with --group", async () => {
    const page = await openApp(ws.browser, groupOne.url, { width: 1280, height: 800 });
    await page.getByTestId('tab-insights').click();
    const note = page.getByTestId('kv-cache-groups');
    await expect.poll(() => note.count(), { timeout: 20_000 }).toBe(1);
    expect(await note.textContent()).toMatch(
      /publishes 2 KV cache groups \(0 full_attention, 1 sliding_window 128\)\. These figures are KV cache group 1's alone .*--group 1.*counted, not applied/,
    );
    // Group 1 alone: each of its stores is new, none a hit (counted together, half were).
    expect(await page.getByTestId('hits-panel').textContent()).toMatch(/does not re-announce/);
    expect(await page.getByTestId('insight-hit-ratio').count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'insights-kv-cache-group-1.png') });
    await page.context().close();
  }, 60_000);
});
