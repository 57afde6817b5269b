// End-to-end helpers: build the app once, run `kvscope serve` as a child process, drive the page
// in the system Chromium (never a downloaded browser), and read the UI's numbers.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { CLI, ROOT, ensureBuilt } from './built-app';

export const SCREENSHOT_DIR = path.join(ROOT, 'test-results', 'screenshots');
export { ensureBuilt };

/** A fresh temp dir (remove it with removeDir). */
export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `kvscope-e2e-${prefix}-`));
}

/** Removes a temp dir and everything in it; nothing when it was never made. */
export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** A running CLI child with its whole output kept. */
export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs `node dist/cli.cjs ...args`, keeping stdout/stderr. */
export function runCli(args: string[]): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface ServeProcess extends CliProcess {
  url: string;
  dataDir: string;
}

/** Starts `kvscope serve --port 0 --data-dir <dir> ...extra` and waits for its URL. */
export async function startServe(dataDir: string, extra: string[] = []): Promise<ServeProcess> {
  const proc = runCli(['serve', '--port', '0', '--data-dir', dataDir, ...extra]);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Do not leave a serve that never said where it listens running after the test.
      void proc.stop();
      reject(new Error(`serve did not start:\n${proc.stderr()}`));
    }, 20_000);
    const onData = () => {
      const m = /serving on (http:\/\/\S+)/.exec(proc.stdout());
      if (!m?.[1]) return;
      clearTimeout(timer);
      proc.child.stdout.off('data', onData);
      resolve(m[1]);
    };
    proc.child.stdout.on('data', onData);
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${String(code)}:\n${proc.stderr()}`));
    });
  });
  return { ...proc, url, dataDir };
}

/** What an e2e file works in: its temp folder, Chromium, and the serves it started. */
export class E2eWorkspace {
  dir = '';
  launched: Browser | undefined;
  private readonly serves: ServeProcess[] = [];

  /** Chromium, once the workspace's beforeAll has launched it. */
  get browser(): Browser {
    if (!this.launched) throw new Error('Chromium is launched in the beforeAll of useE2eWorkspace');
    return this.launched;
  }

  /** A file written into the workspace's folder; its path. */
  async file(name: string, content: string | Uint8Array): Promise<string> {
    const file = path.join(this.dir, name);
    await writeFile(file, content);
    return file;
  }

  /** `kvscope serve` with the data folder `dataName` in the workspace; stopped at the end. */
  async serve(dataName: string, extra: string[] = []): Promise<ServeProcess> {
    const started = await startServe(path.join(this.dir, dataName), extra);
    this.serves.push(started);
    return started;
  }

  async end(): Promise<void> {
    await this.launched?.close();
    await Promise.all(this.serves.map((s) => s.stop()));
    await removeDir(this.dir);
  }
}

/**
 * The setup most e2e files share, as hooks of the calling file: the app built, the screenshot
 * folder, a temp folder and Chromium before its tests; all closed and removed after them. Hooks
 * stack, so the file's own beforeAll runs after this one and its own afterAll before the end.
 */
export function useE2eWorkspace(prefix: string): E2eWorkspace {
  const ws = new E2eWorkspace();
  beforeAll(async () => {
    ensureBuilt();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    ws.dir = await tempDir(prefix);
    ws.launched = await launchChromium();
  }, 120_000);
  afterAll(() => ws.end());
  return ws;
}

/** The system Chromium, headless, with nothing phoning home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** Opens the app and waits for the first update frame (the KPI tiles appear). */
export async function openApp(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 800 },
): Promise<Page> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(url);
  await page.getByTestId('kpi-stored-blocks').waitFor({ timeout: 20_000 });
  return page;
}

const KPI_IDS = [
  'stored-blocks',
  'removed-blocks',
  'resident-blocks',
  'gaps',
  'undecoded',
  'events',
  'clears',
] as const;

export type KpiId = (typeof KPI_IDS)[number];

/** The number a KPI tile shows, exactly (its data-value; the Overview must be open). */
export async function kpi(page: Page, id: KpiId): Promise<number> {
  const value = await page.getByTestId(`kpi-${id}`).getAttribute('data-value', { timeout: 10_000 });
  return Number(value);
}

/** Reads several KPI tiles at once. */
export async function kpis(page: Page): Promise<Record<KpiId, number>> {
  const values = await Promise.all(KPI_IDS.map((id) => kpi(page, id)));
  return Object.fromEntries(KPI_IDS.map((id, i) => [id, values[i]])) as Record<KpiId, number>;
}

/** Waits until a KPI tile shows `value`. */
export async function expectKpi(
  page: Page,
  id: KpiId,
  value: number,
  timeout = 20_000,
): Promise<void> {
  await expect.poll(() => kpi(page, id), { timeout, interval: 100 }).toBe(value);
}

/**
 * Clicks a table row on its first cell, as a reader opening it does. Its middle may be a hash's
 * copy button (shown on the row under the pointer, placed by the hash's width), which copies the
 * hash instead of opening the row.
 */
export function clickRow(row: Locator): Promise<void> {
  return row.click({ position: { x: 12, y: 8 } });
}

/** Switches view by its tab. */
export async function showView(
  page: Page,
  name: 'Overview' | 'Chains' | 'Events' | 'Connections',
): Promise<void> {
  await page.getByRole('tab', { name }).click();
  await page.getByRole('tab', { name, selected: true }).waitFor();
}

/** Sets the theme through the header's toggle (it cycles system → light → dark). */
export async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  const label = theme === 'light' ? 'Light' : 'Dark';
  for (let i = 0; i < 3; i++) {
    const toggle = page.getByTestId('theme-toggle');
    if ((await toggle.getAttribute('aria-label'))?.startsWith(`Theme: ${label}.`)) break;
    await toggle.click();
  }
  // A string: this file type-checks without the DOM library.
  await page.waitForFunction(`document.documentElement.dataset.theme === ${JSON.stringify(theme)}`);
}

/** What the file progress bar of `page` says now, or null when there is none. */
export async function fileProgress(page: Page): Promise<{ label: string; percent: number } | null> {
  const bar = page.getByTestId('progress');
  if ((await bar.count()) === 0) return null;
  const label = (await page.getByTestId('progress-label').textContent()) ?? '';
  const value = await bar.getByRole('progressbar').getAttribute('aria-valuenow');
  return { label, percent: Number(value) };
}
