// `kvscope analyze`'s last line says what the input held without contradicting itself: a file's
// events with a bad ts are among its event errors (never "0 events with a bad ts" beside them),
// and a session of a header alone (a recording just begun) is analyzed, empty, as it opens.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stored } from '../model/helpers';
import { CLI, ensureBuilt } from '../support/built-app';
import { lostBatchesSession } from '../support/lost-session';
import { sessionBytes } from '../support/session-bytes';
import { encodeRecord, makeHeader } from '../../electron/session/format';

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
      'Input: 0 gaps (0 batches lost), 0 undecoded, 1 event error (a bad ts or bad fields: see the problems)',
    );
    expect(stdout.split('\n')[0]).toBe(
      `KV cache analysis of ${file} (session): 2 events in 2 batches, 1 source`,
    );
  });

  it('counts a batch whose seq is past 2^53 as one undecoded, as live, and keeps the rest', async () => {
    const file = session('far-seq.kvscope.jsonl.gz', [1000, 1001, 1002]);
    // The second batch's seq as a u64 no counter reaches (a garbled line): JSON text, exact.
    const text = gunzipSync(readFileSync(file)).toString('utf8');
    writeFileSync(file, gzipSync(text.replace('"seq":1,', '"seq":18446744073709551615,')));
    const { stdout, stderr } = await run(process.execPath, [CLI, 'analyze', file]);
    expect(stderr).toBe(
      '# line 3: seq 18446744073709551615 is out of reach (past 2^53 - 1, the largest seq kept exact): its batch is not applied, counted as undecoded as live\n',
    );
    expect(stdout.split('\n')[0]).toBe(
      `KV cache analysis of ${file} (session): 2 events in 2 batches, 1 source`,
    );
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      'Input: 0 gaps (0 batches lost), 1 undecoded, 0 event errors (a bad ts or bad fields: see the problems)',
    );
  });

  it('leaves a source removed during the recording out of the input line too, and names it', async () => {
    const a = { id: 'a', name: 'engine A', endpoint: 'tcp://127.0.0.1:1' };
    const b = { id: 'b', name: 'engine B', endpoint: 'tcp://127.0.0.1:2' };
    const file = path.join(dir, 'removed.kvscope.jsonl.gz');
    const lines = [
      JSON.stringify(makeHeader('t', new Date(0), [a, b])),
      encodeRecord({ k: 'event', rec: { ...stored('a', 1, ['1', '2']), seq: 1 } }),
      encodeRecord({ k: 'event', rec: { ...stored('b', 2, ['3']), seq: 1 } }),
      encodeRecord({ k: 'event', rec: { ...stored('b', 3, ['4']), seq: 2 } }),
      encodeRecord({ k: 'source', rec: { ...b, removedAt: 5 } }),
      encodeRecord({ k: 'event', rec: { ...stored('a', 6, ['5'], '2'), seq: 2 } }),
    ];
    writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
    const { stdout } = await run(process.execPath, [CLI, 'analyze', file]);
    expect(stdout.split('\n').slice(0, 2)).toEqual([
      `KV cache analysis of ${file} (session): 2 events in 2 batches, 1 source`,
      'Removed during the recording, left out of every figure: engine B',
    ]);
    // The JSON keys sources by id, and says beside them their names and which were removed.
    const json = JSON.parse((await run(process.execPath, [CLI, 'analyze', '--json', file])).stdout);
    expect(Object.keys(json.per_source)).toEqual(['a']);
    expect(json.source_names).toEqual({ a: 'engine A', b: 'engine B' });
    expect(json.removed_sources).toEqual(['b']);
  });

  it('says a peak capacity may be past the real one where batches were lost, and only there', async () => {
    const line =
      'A "peak" capacity counts the blocks evicted in the 3 batches lost as still resident: it may be past the real capacity.';
    for (const lost of [3, 0]) {
      const file = path.join(dir, `lost-${lost}.kvscope.jsonl`);
      writeFileSync(file, lostBatchesSession(lost));
      const { stdout } = await run(process.execPath, [CLI, 'analyze', file]);
      expect(stdout.includes(line)).toBe(lost > 0);
      expect(stdout).toContain('What-if capacity');
    }
  });

  it('says how many lines it did not apply, skipped or duplicate, in the text and the JSON', async () => {
    const file = session('dup.kvscope.jsonl.gz', [1000, 1001]);
    const lines = gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
    // The second event's line again (its batch read before), then a line that is no JSON.
    writeFileSync(file, gzipSync(`${[...lines, lines[2], '{"k":"event",'].join('\n')}\n`));
    const text = await run(process.execPath, [CLI, 'analyze', file]);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Lines not applied: 1 line skipped (unreadable), 1 duplicate line (a batch read before)',
    );
    const { stdout } = await run(process.execPath, [CLI, 'analyze', '--json', file]);
    const json = JSON.parse(stdout) as {
      read: { skipped_lines: number; duplicate_lines: number; problems: string[] };
      input: { events: number };
    };
    expect(json.read).toMatchObject({ skipped_lines: 1, duplicate_lines: 1 });
    // What stderr says of the file, for a script: the same lines.
    expect(json.read.problems.map((p) => `# ${p}`)).toEqual(text.stderr.trimEnd().split('\n'));
    expect(json.read.problems.join('\n')).toMatch(/line 5/);
    expect(json.input.events).toBe(2);
  });

  it('analyzes a session of a header alone, empty, as the screens open it', async () => {
    const file = session('empty.kvscope.jsonl.gz', []);
    const { stdout, stderr } = await run(process.execPath, [CLI, 'analyze', '--json', file]);
    expect(stderr).toBe('');
    expect((JSON.parse(stdout) as { input: { events: number } }).input.events).toBe(0);
  });
});
