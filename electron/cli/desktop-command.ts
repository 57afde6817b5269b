// `kvscope desktop` (what `npm start` runs): launches the Electron app; where Electron cannot start
// (its binary cannot be downloaded, or there is no display) it says so plainly and serves the
// browser mode instead.

import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { defaultDataDir } from '../service/data-dir';
import { LAUNCH_ENV, encodeLaunchOptions } from './launch-options';
import { addEndpointOptions, endpointsFromFlags, type EndpointFlags } from './endpoint-options';
import { kvCacheGroupOption, portOption } from './option-values';
import { runServe, SCREEN_GROUP_EFFECT } from './serve-command';

/** Electron failing within this long after launch is taken as "cannot start here". */
const EARLY_EXIT_MS = 8000;

interface DesktopFlags extends EndpointFlags {
  browser: boolean;
  port: number;
  group?: number;
}

/** Registers `kvscope desktop`. */
export function registerDesktop(program: Command): void {
  const command = program
    .command('desktop', { isDefault: false })
    .description(
      'launch the desktop app (falls back to the browser mode where Electron cannot start)',
    )
    .option('--browser', 'skip Electron and serve the browser mode', false)
    .option('--port <port>', 'port for the browser-mode fallback', portOption('--port'), 8080)
    .addOption(kvCacheGroupOption(SCREEN_GROUP_EFFECT));
  addEndpointOptions(command).action((flags: DesktopFlags) => runDesktop(flags));
}

async function runDesktop(flags: DesktopFlags): Promise<void> {
  endpointsFromFlags(flags); // a bad endpoint fails here, before anything starts
  const problem = flags.browser ? 'the browser mode was asked for' : await launchElectron(flags);
  if (problem === null) return;
  process.stderr.write(
    `KV Scope: the desktop window cannot start here: ${problem}.\n` +
      'Starting the browser mode instead (the same app, in your browser).\n',
  );
  await runServe({ ...flags, host: '127.0.0.1', dataDir: defaultDataDir() }, fallbackPortAdvice());
}

/**
 * How the user of the desktop app picks another port for its browser-mode fallback: they asked
 * for no port, and `npm start` takes the flag only after `--`.
 */
function fallbackPortAdvice(): string {
  const command =
    process.env.npm_lifecycle_event === 'start'
      ? 'npm start -- --port 0'
      : 'kvscope desktop --port 0';
  return (
    `the browser mode the desktop app falls back to listens there (another KV Scope may be running ` +
    `on it already): start with \`${command}\` to have it pick a free port`
  );
}

/** Runs Electron until it quits; returns why it could not start, or null when it ran. */
async function launchElectron(flags: DesktopFlags): Promise<string | null> {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  }
  const appDir = path.resolve(__dirname, '..');
  // require('electron') resolves, and downloads on first use, the binary: do it in a child so a
  // failed download is an answer, not a crash.
  const resolved = spawnSync(
    process.execPath,
    ['-e', "process.stdout.write(require('electron'))"],
    {
      cwd: appDir,
      encoding: 'utf8',
      timeout: 180_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (resolved.status !== 0 || !resolved.stdout) {
    const output = `${resolved.stderr ?? ''}\n${resolved.error?.message ?? ''}`;
    const errors = output.split('\n').filter((line) => /^\w*Error\b/.test(line.trim()));
    return `the Electron binary is not installed and could not be downloaded (${errors.join('; ') || 'no reason given'})`;
  }
  const child = spawn(resolved.stdout, [appDir], {
    stdio: 'inherit',
    env: {
      ...process.env,
      [LAUNCH_ENV]: encodeLaunchOptions({
        endpoints: endpointsFromFlags(flags),
        demo: flags.demo,
        demoPort: flags.demoPort,
        ...(flags.group === undefined ? {} : { group: flags.group }),
      }),
    },
  });
  const startedAt = Date.now();
  return new Promise((resolve) => {
    child.once('error', (err) => resolve(`Electron could not be run (${err.message})`));
    child.once('exit', (code, signal) => {
      const early = Date.now() - startedAt < EARLY_EXIT_MS;
      if (early && code !== 0) resolve(`Electron exited at start (${signal ?? `code ${code}`})`);
      else resolve(null);
    });
  });
}
