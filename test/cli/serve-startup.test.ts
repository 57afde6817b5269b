// `kvscope serve` at start: what cannot work stops it with one clear line and exit code 1 (a
// missing file, a port in use, a read-only data folder), and off loopback it prints the token URL.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { startServe } from '../support/e2e-harness';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-serve-start-'));
  // Another user (below) must be able to reach the folders made in here.
  chmodSync(dir, 0o755);
}, 180_000);

// Every serve the token test starts is stopped passed, failed or timed out: a test that times
// out never reaches its own finally (its body is still waiting), and a serve left running off
// loopback was found 16 minutes later, its demo publishing.
const started: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end; as root it can run as nobody, for whom permissions hold. */
function runToEnd(args: string[], asNobody = false, env = process.env): Promise<Exit> {
  const user = asNobody && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      ...user,
    });
    let stdout = '';
    let stderr = '';
    // A serve that did start runs until stopped: that is a failure here, so it is ended.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function dataDir(name: string): string {
  const d = path.join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

/** Exit code 1 and exactly one line on stderr, no stack trace. */
function expectOneLine(run: Exit, pattern: RegExp): void {
  expect(run.code).toBe(1);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\bat \S+ \(|Unhandled|node:events/);
  expect(run.stdout).not.toMatch(/serving on/);
}

describe('kvscope serve at start', () => {
  it('stops with one line and exit code 1 when the --open file is missing', async () => {
    const missing = path.join(dir, 'no-such-session.kvscope.jsonl.gz');
    const run = await runToEnd([
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir('open'),
      '--open',
      missing,
    ]);
    expectOneLine(
      run,
      /^kvscope: --open .*no-such-session\.kvscope\.jsonl\.gz: no such file; give the path/,
    );
  });

  it('stops with one line and exit code 1 when the --import file is missing', async () => {
    const missing = path.join(dir, 'no-such-capture.jsonl');
    const args = ['serve', '--port', '0', '--data-dir', dataDir('import'), '--import', missing];
    expectOneLine(
      await runToEnd(args),
      /^kvscope: --import .*no-such-capture\.jsonl: no such file/,
    );
  });

  it('stops with one line and exit code 1 when the --open file is no session at all', async () => {
    const junk = path.join(dir, 'junk.jsonl');
    writeFileSync(junk, 'this is not a session\nnor a capture\n');
    const args = ['serve', '--port', '0', '--data-dir', dataDir('junk'), '--open', junk];
    const run = await runToEnd(args);
    // The line that says what it opens comes first (a big file takes a while), then why not.
    const [opening, ...rest] = run.stderr.split('\n');
    expect(opening).toMatch(/^kvscope serve: opening .*junk\.jsonl \(36 B\)/);
    expectOneLine({ ...run, stderr: rest.join('\n') }, /^kvscope: could not open junk\.jsonl: /);
  });

  it('stops with one line and exit code 1 when the --open file is a folder or a named pipe', async () => {
    const folder = ['serve', '--port', '0', '--data-dir', dataDir('folder'), '--open', dir];
    expectOneLine(await runToEnd(folder), /^kvscope: --open .*: it is a folder, not a file; give/);
    const fifo = path.join(dir, 'pipe.kvscope.jsonl.gz');
    execFileSync('mkfifo', [fifo]);
    const piped = ['serve', '--port', '0', '--data-dir', dataDir('fifo'), '--open', fifo];
    expectOneLine(
      await runToEnd(piped),
      /^kvscope: --open .*: it is a named pipe \(FIFO\), not a file/,
    );
  });

  it('binds its port before it reads the --open file: a busy port fails before any reading', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const address = taken.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const junk = path.join(dir, 'busy.jsonl');
      writeFileSync(junk, 'this is not a session\n');
      const args = ['serve', '--port', String(port), '--data-dir', dataDir('busy'), '--open', junk];
      const run = await runToEnd(args);
      expectOneLine(run, new RegExp(`^kvscope: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(run.stderr).not.toMatch(/opening/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('stops with one line and exit code 1 when the port is in use', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const address = taken.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const data = dataDir('port');
      const args = ['serve', '--port', String(port), '--data-dir', data];
      expectOneLine(
        await runToEnd(args),
        new RegExp(
          `^kvscope: port ${port} on 127\\.0\\.0\\.1 is already in use: pass another --port`,
        ),
      );
      // A start that never served leaves no recording for Recent recordings to list.
      const recordings = path.join(data, 'recordings');
      expect(existsSync(recordings) ? readdirSync(recordings) : []).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('tells a user of npm start whose browser fallback finds its port taken to run npm start -- --port 0', async () => {
    // npm start passes no port: the fallback listens on 8080, held here unless something else is.
    const taken: Server = createServer();
    await new Promise<void>((resolve) => {
      taken.once('error', () => resolve());
      taken.listen(8080, '127.0.0.1', resolve);
    });
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        XDG_CONFIG_HOME: dataDir('desktop'),
        npm_lifecycle_event: 'start',
      };
      // No display: the desktop window cannot start, so it falls back to the browser mode.
      delete env.DISPLAY;
      delete env.WAYLAND_DISPLAY;
      const run = await runToEnd(['desktop'], false, env);
      expect(run.code).toBe(1);
      const last = run.stderr.trimEnd().split('\n').at(-1);
      expect(last).toMatch(
        /^kvscope: port 8080 on 127\.0\.0\.1 is already in use: .*start with `npm start -- --port 0`/,
      );
      expect(last).not.toMatch(/pass another --port/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('says a read-only data folder is read-only, for the folder and for one to be made in it', async () => {
    const readOnly = dataDir('read-only');
    chmodSync(readOnly, 0o555);
    try {
      const existing = await runToEnd(['serve', '--port', '0', '--data-dir', readOnly], true);
      expectOneLine(
        existing,
        /^kvscope: the data folder .*read-only is read-only \((EACCES|EROFS)\): pass --data-dir/,
      );
      const inside = path.join(readOnly, 'kvscope', 'data');
      const made = await runToEnd(['serve', '--port', '0', '--data-dir', inside], true);
      expectOneLine(
        made,
        /^kvscope: .*read-only, where the data folder .* would be made, is read-only \(/,
      );
      expect(made.stderr).not.toMatch(/ENOENT|mkdir/);
    } finally {
      chmodSync(readOnly, 0o755);
    }
  });

  it('says a data folder that is a file is one', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const run = await runToEnd(['serve', '--port', '0', '--data-dir', file]);
    expectOneLine(
      run,
      /^kvscope: the data folder .*a-file is a file, not a folder: pass --data-dir/,
    );
  });

  it.runIf(existsSync('/proc/self'))(
    'says a data folder that cannot be made in the folder that exists cannot be made (it hung)',
    async () => {
      // Node's recursive mkdir loops for ever on /proc/nope/x (ENOENT, then EEXIST for /proc).
      const run = await runToEnd(['serve', '--port', '0', '--data-dir', '/proc/nope/x']);
      expectOneLine(run, /^kvscope: the data folder \/proc\/nope\/x cannot be made \(ENOENT/);
    },
  );

  it('says on stderr when $KVSCOPE_RECORDINGS_BUDGET is no size, and keeps 2 GiB', async () => {
    // The child takes the environment at its spawn.
    process.env.KVSCOPE_RECORDINGS_BUDGET = 'lots';
    let serve: Awaited<ReturnType<typeof startServe>>;
    try {
      serve = await startServe(dataDir('budget'));
    } finally {
      delete process.env.KVSCOPE_RECORDINGS_BUDGET;
    }
    started.push(serve);
    expect(serve.stderr()).toContain(
      'KVSCOPE_RECORDINGS_BUDGET "lots" is not a size: write it as 2GiB, 500MiB or a number of bytes; keeping recordings within 2 GiB instead',
    );
  });

  it('off loopback prints a URL with a token, and answers only with it', async () => {
    const start = async (...args: Parameters<typeof startServe>) => {
      const s = await startServe(...args);
      started.push(s);
      return s;
    };
    const serve = await start(dataDir('token'), ['--host', '0.0.0.0']);
    try {
      const printed = new URL(serve.url);
      const token = printed.searchParams.get('token') ?? '';
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(serve.stdout()).toMatch(/needs the token/);
      // On every interface, the URL another machine opens names this host.
      const remote = new URL(/From another machine: (\S+)/.exec(serve.stdout())?.[1] ?? '');
      expect(remote.hostname).toBe(os.hostname().toLowerCase());
      expect([remote.port, remote.searchParams.get('token')]).toEqual([printed.port, token]);
      const page = await fetch(serve.url);
      expect(page.status).toBe(200);
      const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? '';
      const bare = await fetch(new URL('/api/export/rates.csv', serve.url));
      expect(bare.status).toBe(403);
      const withCookie = await fetch(new URL('/api/export/rates.csv', serve.url), {
        headers: { Cookie: cookie },
      });
      expect(withCookie.status).toBe(200);
      // A second start draws another token, unless --token names one (a scrape config can hold it).
      const again = await start(dataDir('token-2'), ['--host', '0.0.0.0']);
      expect(new URL(again.url).searchParams.get('token')).not.toBe(token);
      await again.stop();
      const fixed = 'a-token-of-my-own-0123456789';
      const named = await start(dataDir('token-3'), ['--host', '0.0.0.0', '--token', fixed]);
      expect(new URL(named.url).searchParams.get('token')).toBe(fixed);
      const metrics = await fetch(new URL('/metrics', named.url), {
        headers: { Authorization: `Bearer ${fixed}` },
      });
      expect(metrics.status).toBe(200);
      await named.stop();
      const weak = await runToEnd(['serve', '--host', '0.0.0.0', '--token', 'short']);
      expectOneLine(weak, /^kvscope: --token: at least 16 letters/);
    } finally {
      for (const s of started.splice(0)) await s.stop();
    }
    // Three serves one after another: more than the default 20 s on a loaded machine.
  }, 90_000);
});
