// `kvscope analyze`'s last line says what the input held without contradicting itself: a file's
// events with a bad ts are among its event errors (never "0 events with a bad ts" beside them),
// and a session of a header alone (a recording just begun) is analyzed, empty, as it opens.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stored } from '../model/helpers';
import { CLI, ensureBuilt } from '../support/built-app';
import { sessionBytes } from '../support/session-bytes';

const run = promisify(execFile);
let dir = '';

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-analyze-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A session of these events' ts, one stored block each. */
function session(name: string, ts: number[]): string {
  const file = path.join(dir, name);
  const events = ts.map((t, i) => ({ ...stored('a', t, [`${i}7`]), seq: i }));
  writeFileSync(file, sessionBytes([], events));
  return file;
}

describe('kvscope analyze input line', () => {
  it('counts a bad ts among the event errors, once', async () => {
    const file = session('mixed.kvscope.jsonl.gz', [1000, 1e16, 1001]);
    const { stdout, stderr } = await run(process.execPath, [CLI, 'analyze', file]);
    expect(stderr).toMatch(/^# line 3: batch ts 10000000000000000 is out of range/);
    const input = stdout.trimEnd().split('\n').at(-1);
    expect(input).toBe(
      'Input: 0 gaps (0 batches lost), 0 undecoded, 1 event errors (a bad ts or bad fields: see the problems)',
    );
    expect(stdout.split('\n')[0]).toBe(
      `KV cache analysis of ${file} (session): 2 events in 2 batches, 1 source`,
    );
  });

  it('analyzes a session of a header alone, empty, as the screens open it', async () => {
    const file = session('empty.kvscope.jsonl.gz', []);
    const { stdout, stderr } = await run(process.execPath, [CLI, 'analyze', '--json', file]);
    expect(stderr).toBe('');
    expect((JSON.parse(stdout) as { input: { events: number } }).input.events).toBe(0);
  });
});
