// Lines a frame would refuse are refused in a file too, in real Chromium against `kvscope serve
// --open`: a block_size of 0, a hash no decoder writes ("-05", upper-case hex), a gap or a reset
// naming a seq past 2^53 each skip their line, counted and said with the file's own digits, while
// every good line stays (a negative int hash "-5" among them: engines hashing with Python's
// builtin hash() publish those, and a live frame of one is taken as well).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { stored } from '../model/helpers';
import {
  SCREENSHOT_DIR,
  expectKpi,
  openApp,
  setTheme,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';

const T0 = 1_767_225_600;
const good = (seq: number, hash: string): string =>
  encodeRecord({ k: 'event', rec: { ...stored('a', T0 + seq, [hash]), seq, idx: 0 } });
const event = (seq: number, body: string): string =>
  `{"k":"event","source":"a","seq":${seq},"ts":${T0 + seq},"idx":0,"event":{"type":"BlockStored",${body}}}`;

const LINES = [
  JSON.stringify(makeHeader('0.1.0', new Date(0), [])),
  good(1, '11'),
  event(2, '"block_hashes":["12"],"block_size":0'),
  good(3, '-5'),
  event(4, '"block_hashes":["-05"],"block_size":16'),
  event(5, '"block_hashes":["ABCD"],"block_size":16'),
  '{"k":"gap","source":"a","from":5,"to":18446744073709551615,"at":1,"recovered":0,"lost":1}',
  `{"k":"reset","source":"a","previousSeq":18446744073709551615,"at":${T0 + 6}}`,
  good(6, '13'),
];

const PROBLEMS = [
  'line 3: block_size 0 is out of range (a whole number from 1 to 1048576) (skipped)',
  'line 5: block hash -05 is not a block hash (a 64-bit integer in decimal, or a digest in lowercase hex of whole bytes) (skipped)',
  'line 6: block hash "ABCD" is not a block hash (a 64-bit integer in decimal, or a digest in lowercase hex of whole bytes) (skipped)',
  'line 7: to 18446744073709551615 is beyond 2^53: this version keeps seqs exact only below 9007199254740992 (skipped)',
  'line 8: previousSeq 18446744073709551615 is beyond 2^53: this version keeps seqs exact only below 9007199254740992 (skipped)',
];

const ws = useE2eWorkspace('bad-lines');
let serve: ServeProcess;

beforeAll(async () => {
  const file = await ws.file('bad-lines.jsonl', `${LINES.join('\n')}\n`);
  serve = await ws.serve('data', ['--open', file]);
}, 120_000);

describe('a session file with lines a frame would refuse', () => {
  it('skips each, says why with its own digits, and keeps every good line', async () => {
    for (const width of [1024, 1440]) {
      const page = await openApp(ws.browser, serve.url, { width, height: 800 });
      await expectKpi(page, 'stored-blocks', 3);
      await expect
        .poll(() => page.getByTestId('problems').locator('li').allTextContents())
        .toEqual(PROBLEMS);
      await expect(page.getByTestId('problems').textContent()).resolves.toContain(
        `(${PROBLEMS.length} problems)`,
      );
      for (const theme of ['light', 'dark'] as const) {
        await setTheme(page, theme);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `bad-lines-${width}-${theme}.png`),
        });
      }
      await page.context().close();
    }
  }, 90_000);
});
