// `kvscope analyze` shows how much of the file it has read on a terminal (a real pseudo-terminal,
// from util-linux's `script`), wipes that line before the report, and says nothing of it on a pipe.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { formatBytes } from '../../shared/byte-size';
import { stored } from '../model/helpers';
import { CLI, ensureBuilt } from '../support/built-app';

const run = promisify(execFile);
let dir = '';
let file = '';

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-analyze-progress-'));
  file = path.join(dir, 'run.kvscope.jsonl.gz');
  const header = makeHeader('test', new Date(Date.UTC(2026, 0, 1)), []);
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < 2000; i += 1) {
    const rec = { ...stored('a', 1000 + i, [`${i}1`, `${i}2`]), seq: i };
    lines.push(encodeRecord({ k: 'event', rec }));
  }
  writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kvscope analyze progress', () => {
  it('shows the share of the file read on a terminal and wipes it before the report', async () => {
    const out = path.join(dir, 'report.json');
    // stderr is the pseudo-terminal; stdout goes to a file, as `analyze --json > x` would.
    const cmd = `'${process.execPath}' '${CLI}' analyze --json '${file}' > '${out}'`;
    const { stdout: tty } = await run('script', ['-qec', cmd, '/dev/null']);
    // The size in the binary units the screens use (the UI's progress bar says the same).
    const size = formatBytes(statSync(file).size);
    expect(size).toMatch(/KiB$/);
    expect(tty).toContain(`# reading ${file}: 100% (${size} of ${size})\r\x1b[K`);
    expect(tty.trimEnd().endsWith('\x1b[K')).toBe(true);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { new_stores: number };
    expect(report.new_stores).toBe(4000);
  });

  it('prints no progress on a pipe', async () => {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'analyze', '--json', file]);
    expect(stderr).toBe('');
    expect((JSON.parse(stdout) as { new_stores: number }).new_stores).toBe(4000);
  });
});
