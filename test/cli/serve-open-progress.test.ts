// `kvscope serve --open FILE` reads the whole file before it listens: stderr says at once what it
// opens and how big it is; on a terminal (a real pseudo-terminal from util-linux's `script`) one
// line follows the reading from the service thread's frames, wiped before the result; on a pipe
// only the start line and the result.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { formatBytes } from '../../shared/byte-size';
import { stored } from '../model/helpers';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { startServe } from '../support/e2e-harness';
import { waitFor } from '../support/wait-for';

let dir = '';
let file = '';
let small = '';

/** A session of n stored events. */
function writeSession(target: string, n: number): void {
  const header = makeHeader('test', new Date(Date.UTC(2026, 0, 1)), []);
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < n; i += 1) {
    const rec = { ...stored('a', 1000 + i / 100, [`${i * 7919}1`, `${i * 104729}2`]), seq: i };
    lines.push(encodeRecord({ k: 'event', rec }));
  }
  writeFileSync(target, gzipSync(`${lines.join('\n')}\n`));
}

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-serve-open-'));
  file = path.join(dir, 'big.kvscope.jsonl.gz');
  // Big enough to take several update frames (100 ms apart) to read.
  writeSession(file, 60_000);
  small = path.join(dir, 'small.kvscope.jsonl.gz');
  writeSession(small, 2000);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kvscope serve --open of a big file', () => {
  it(
    'says on a pipe what it opens before it listens, then the result, and nothing between',
    { timeout: 60_000 },
    async () => {
      const serve = await startServe(path.join(dir, 'pipe'), ['--open', small]);
      try {
        const lines = serve.stderr().trimEnd().split('\n');
        // Its size in the binary units the page's progress bar uses.
        expect(lines[0]).toBe(
          `kvscope serve: opening ${small} (${formatBytes(statSync(small).size)}); the page is served once it is read`,
        );
        expect(lines.slice(1)).toEqual(['Opened small.kvscope.jsonl.gz']);
      } finally {
        await serve.stop();
      }
    },
  );

  it(
    'opens a file again from the state its first open kept, and says so',
    { timeout: 60_000 },
    async () => {
      const data = path.join(dir, 'again');
      const first = await startServe(data, ['--open', small]);
      const kept = path.join(data, 'open-cache');
      try {
        expect(first.stderr()).toContain('\nOpened small.kvscope.jsonl.gz\n');
        // Kept in the background once the view shows it.
        await waitFor(
          () => existsSync(kept) && readdirSync(kept).some((n) => n.endsWith('.state.br')),
          'the open to keep its state',
        );
      } finally {
        await first.stop();
      }
      const second = await startServe(data, ['--open', small]);
      try {
        expect(second.stderr()).toContain(
          '\nOpened small.kvscope.jsonl.gz (as its last open left it)\n',
        );
      } finally {
        await second.stop();
      }
    },
  );

  it('says once on stderr that an open was not kept where the cache folder cannot be made', async () => {
    const data = path.join(dir, 'blocked');
    mkdirSync(data);
    writeFileSync(path.join(data, 'open-cache'), 'a file where the folder would be');
    const serve = await startServe(data, ['--open', small]);
    try {
      expect(serve.stderr()).toContain('\nOpened small.kvscope.jsonl.gz\n');
      await waitFor(() => /an open's state was not kept/.test(serve.stderr()), 'the note');
      expect(serve.stderr()).toMatch(
        /^kvscope: an open's state was not kept: it could not be kept in .*open-cache \(.*\); the same file opened again replays it$/m,
      );
    } finally {
      await serve.stop();
    }
  });

  it('follows the reading on a terminal in one line, wiped before the result', async () => {
    // The shell under `script` says the pid of serve, so the test can end that process itself.
    const cmd = `'${process.execPath}' '${CLI}' serve --port 0 --data-dir '${path.join(dir, 'tty')}' --open '${file}' & echo "pid=$!"; wait`;
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: ROOT });
    let tty = '';
    child.stdout.on('data', (d: Buffer) => (tty += d.toString()));
    try {
      await waitFor(() => /serving on/.test(tty), 'serve to listen', 60_000);
    } finally {
      const pid = Number(/pid=(\d+)/.exec(tty)?.[1]);
      if (pid > 0) process.kill(pid, 'SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
    const name = path.basename(file);
    expect(tty).toContain(`kvscope serve: opening ${file} (`);
    expect(tty).toContain(`\r\x1b[K# reading ${name}: 0% (0 B of `);
    // Frames from the service thread move it on while the file is read.
    const shown = [...tty.matchAll(/# reading \S+: (\d+)% \(/g)].map((m) => Number(m[1]));
    expect(shown.some((pct) => pct > 0)).toBe(true);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    const size = formatBytes(statSync(file).size);
    expect(tty).toContain(` of ${size})\r\x1b[KOpened ${name}`);
  }, 90_000);
});
