// The engine's own metrics beside the stream, in real Chromium against `kvscope serve`: a
// simulated vLLM rank over real ZeroMQ with a vLLM-shaped /metrics on a real HTTP server, and a
// second source whose metrics URL is down; each card says what it knows, or what is wrong.
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import { closedPort, serveText, textHandler, type TextServer } from '../metrics/http-text-server';
import { vllmMetricsText, type SampleEngine } from '../metrics/vllm-sample';
import {
  SCREENSHOT_DIR,
  openApp,
  setTheme,
  showView,
  type ServeProcess,
  useE2eWorkspace,
} from '../support/e2e-harness';
import { warmUp } from '../support/e2e-sim';
import { eventually } from '../support/wait-for';

const GPU_BLOCKS = 2000;

const ws = useE2eWorkspace('engine-metrics');
let sim: SimPublisher;
let engine: TextServer;
let serve: ServeProcess;
let page: Page;
let live: string;
let down: string;

const sample = (usage: number): SampleEngine => ({
  engine: '0',
  numGpuBlocks: GPU_BLOCKS,
  blockSize: 16,
  usage,
  queries: 40_000,
  hits: 10_000,
  preemptions: 2,
});

beforeAll(async () => {
  engine = await serveText(vllmMetricsText([sample(0.25)]));
  // The simulator binds port 0 and says where (a port looked up first could be taken before the
  // bind); nothing listens on the other source's port.
  const nowhere = await closedPort();
  sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    port: 0,
    rate: 0,
    seed: 5,
    clearEvery: 0,
    gpuBlocks: 512,
    reannounce: 0.3,
  });
  live = sim.ranks[0]?.pubEndpoint ?? '';
  down = `tcp://127.0.0.1:${nowhere}`;
  serve = await ws.serve('data', [
    '--endpoint',
    live,
    '--engine-metrics',
    engine.url(),
    '--endpoint',
    down,
    '--engine-metrics',
    `http://127.0.0.1:${await closedPort()}/metrics`,
  ]);
  page = await openApp(ws.browser, serve.url, { width: 1280, height: 900 });
  await warmUp(page, sim, live);
  await sim.publish(200);
  await showView(page, 'Overview');
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await engine?.close();
});

const card = (name: string): Locator =>
  page.getByRole('article', { name: `Engine metrics of ${name}` });
const value = (c: Locator, id: string) => c.getByTestId(id).getAttribute('data-value');

/** The page scrolled to the panel at 1024 and 1440 px wide, and at 1440 in the dark theme. */
async function shots(name: string): Promise<void> {
  const shot = (file: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, file) });
  for (const width of [1024, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('engine-panel').scrollIntoViewIfNeeded();
    await shot(`engine-${name}-${width}.png`);
  }
  await setTheme(page, 'dark');
  await shot(`engine-${name}-1440-dark.png`);
  await setTheme(page, 'light');
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the engine metrics panel', () => {
  it('shows resident blocks from the events beside the engine usage, the hit rates and the capacity', async () => {
    const truth = sim.stats().ranks[0]?.resident.GPU ?? 0;
    expect(truth).toBeGreaterThan(50);
    const a = card(live);
    await eventually(
      () => value(a, 'engine-event-resident'),
      (v) => v === String(truth),
      'the events resident GPU blocks on the card',
    );
    expect(await value(a, 'engine-used')).toBe(String(GPU_BLOCKS / 4));
    expect(await value(a, 'engine-diff')).toBe(String(truth - GPU_BLOCKS / 4));
    expect(await a.getByTestId('engine-state').textContent()).toBe('read');
    expect(Number(await value(a, 'engine-hit-rate'))).toBeCloseTo(0.25, 10);
    expect(await a.getByTestId('engine-hit-rate').textContent()).toBe('25.0%');
    expect(Number(await value(a, 'engine-announced'))).toBeGreaterThan(0);
    expect(await value(a, 'engine-capacity')).toBe(String(GPU_BLOCKS));
    await expect
      .poll(() => a.getByTestId('engine-capacity').textContent())
      .toContain("the engine's num_gpu_blocks");
    expect(await value(a, 'engine-preemptions')).toBe('2');
    // The source whose metrics URL is down says so on its own card, at once.
    const b = card(down);
    await b.getByTestId('engine-error').waitFor();
    expect(await b.getByTestId('engine-error').textContent()).toMatch(/connection refused/);
    expect(await b.getByTestId('engine-state').textContent()).toBe('not read');
    // By the next read three more preemptions (drawn over time) and 3,000 hits of 4,000 queries.
    engine.set(
      textHandler(
        vllmMetricsText([{ ...sample(0.25), preemptions: 5, queries: 44_000, hits: 13_000 }]),
      ),
    );
    await a.getByTestId('engine-preemption-chart').waitFor({ timeout: 20_000 });
    await eventually(
      () => value(a, 'engine-preemptions'),
      (v) => v === '5',
      'the preemptions total to follow the engine',
    );
    expect(await a.getByTestId('engine-window-hit-rate').textContent()).toMatch(
      /^75\.0% last 60 s/,
    );
    await shots('live');
  }, 60_000);

  it('marks the figures stale with the reason when a metrics URL that worked goes down', async () => {
    engine.set((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const a = card(live);
    await a.getByTestId('engine-error').waitFor({ timeout: 20_000 });
    expect(await a.getByTestId('engine-error').textContent()).toMatch(/answered HTTP 503/);
    expect(await a.getByTestId('engine-state').textContent()).toBe('stale');
    // The last good figures stay, and the charts above still move.
    expect(await value(a, 'engine-used')).toBe(String(GPU_BLOCKS / 4));
    await shots('url-down');
  }, 60_000);
});
