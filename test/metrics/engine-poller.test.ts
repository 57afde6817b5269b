// The engine's own /metrics, read from a real HTTP server on loopback serving vLLM-shaped text.
import { afterEach, describe, expect, it } from 'vitest';
import { figuresForRank, readEngineFigures } from '../../electron/metrics/engine-figures';
import { EnginePoller } from '../../electron/metrics/engine-poller';
import { closedPort, serveText, type TextServer } from './http-text-server';
import { oldVllmMetricsText, vllmMetricsText, type SampleEngine } from './vllm-sample';

const RANK0: SampleEngine = {
  engine: '0',
  numGpuBlocks: 27767,
  blockSize: 16,
  usage: 0.4375,
  queries: 91234,
  hits: 40960,
  preemptions: 3,
};
const RANK1: SampleEngine = {
  engine: '1',
  numGpuBlocks: 27801,
  blockSize: 16,
  usage: 0.125,
  queries: 5000,
  hits: 128,
  preemptions: 0,
};

const servers: TextServer[] = [];
const pollers: EnginePoller[] = [];
afterEach(async () => {
  for (const p of pollers.splice(0)) p.close();
  for (const s of servers.splice(0)) await s.close();
});

async function server(text: string): Promise<TextServer> {
  const s = await serveText(text);
  servers.push(s);
  return s;
}

function poller(url: string, timeoutMs = 2000): EnginePoller {
  const p = new EnginePoller({ url, timeoutMs, intervalMs: 60_000 });
  pollers.push(p);
  return p;
}

const expected = (e: SampleEngine) => ({
  numGpuBlocks: e.numGpuBlocks,
  blockSize: e.blockSize,
  kvCacheUsage: e.usage,
  prefixCacheQueries: e.queries,
  prefixCacheHits: e.hits,
  preemptions: e.preemptions,
  modelName: 'meta-llama/Llama-3.1-8B-Instruct',
});

describe('engine metrics', () => {
  it('reads each data-parallel engine of a vLLM /metrics answer by its engine label', async () => {
    const s = await server(vllmMetricsText([RANK0, RANK1]));
    const reading = await poller(s.url()).poll();
    expect(reading.message).toBeNull();
    expect(reading.ok).toBe(true);
    const engines = reading.engines;
    if (!engines) throw new Error('no figures');
    expect(figuresForRank(engines, 0)).toEqual(expected(RANK0));
    expect(figuresForRank(engines, 1)).toEqual(expected(RANK1));
    expect(figuresForRank(engines, 2)).toBeNull();
  });

  it("reads an older vLLM's gpu_-prefixed names, and gives its one engine to rank 0", () => {
    const engines = readEngineFigures(oldVllmMetricsText(RANK0));
    expect(figuresForRank(engines, 0)).toEqual(expected(RANK0));
  });

  it('takes no value an engine cannot have: a num_gpu_blocks of 1e23, a usage past 1, a negative count', () => {
    // The text a hostile or broken server could serve: each absurd figure is left out, never shown
    // (a what-if sized by 1e23 blocks), and the sane ones beside it are kept.
    const text = (e: Partial<Record<keyof SampleEngine, number | string>>): string =>
      oldVllmMetricsText({ ...RANK0, ...e } as Omit<SampleEngine, 'engine'>);
    const read = (e: Parameters<typeof text>[0]) =>
      figuresForRank(readEngineFigures(text(e)), 0) as NonNullable<
        ReturnType<typeof figuresForRank>
      >;
    expect(read({ numGpuBlocks: '99999999999999999999999' }).numGpuBlocks).toBeNull();
    expect(read({ numGpuBlocks: 2 ** 31 + 1 }).numGpuBlocks).toBeNull();
    expect(read({ numGpuBlocks: 12.5 }).numGpuBlocks).toBeNull();
    expect(read({ numGpuBlocks: 0 }).numGpuBlocks).toBeNull();
    expect(read({ numGpuBlocks: 2 ** 31 }).numGpuBlocks).toBe(2 ** 31);
    expect(read({ blockSize: 2 ** 21 }).blockSize).toBeNull();
    const absurd = read({ usage: 7, queries: -5, hits: 40960 });
    expect(absurd.kvCacheUsage).toBeNull();
    expect(absurd.prefixCacheQueries).toBeNull();
    expect(absurd.prefixCacheHits).toBe(40960);
    expect(absurd.numGpuBlocks).toBe(RANK0.numGpuBlocks);
  });

  it('says "connection refused" for a URL nothing listens on, and the poll ends', async () => {
    const port = await closedPort();
    const reading = await poller(`http://127.0.0.1:${port}/metrics`).poll();
    expect(reading.ok).toBe(false);
    expect(reading.message).toContain(`127.0.0.1:${port}`);
    expect(reading.message).toContain('connection refused');
    expect(reading.engines).toBeNull();
  });

  it('names a host that does not resolve, in the words a source uses', async () => {
    const reading = await poller('http://no-such-host.invalid:8000/metrics').poll();
    expect(reading.ok).toBe(false);
    expect(reading.message).toMatch(
      /: the host name "no-such-host\.invalid" does not resolve \((ENOTFOUND|EAI_AGAIN)\)/,
    );
  });

  it('says which HTTP status a wrong path answered, and where vLLM serves its metrics', async () => {
    const s = await server('');
    s.set((_req, res) => {
      res.writeHead(404);
      res.end('Not Found');
    });
    const reading = await poller(s.url('/metrix')).poll();
    expect(reading.ok).toBe(false);
    expect(reading.message).toMatch(/HTTP 404.*:8000\/metrics/);
  });

  it('says that a page which is not an engine /metrics is not one', async () => {
    const html = await server('');
    html.set((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html>\n<html><body>Grafana</body></html>\n');
    });
    const other = await server('# TYPE up gauge\nup 1\n');
    const a = await poller(html.url()).poll();
    const b = await poller(other.url()).poll();
    expect(a.message).toContain('not Prometheus text: the answer is an HTML page');
    expect(b.message).toContain('no vllm: metrics');
  });

  it('gives up on a server that never answers after its timeout, with a message', async () => {
    const s = await server('');
    s.set(() => undefined); // accepts, never answers
    const reading = await poller(s.url(), 200).poll();
    expect(reading.ok).toBe(false);
    expect(reading.message).toContain('did not answer within 0.2 s');
  });

  it('keeps the last good figures (stale) while the URL fails, and says why', async () => {
    const s = await server(vllmMetricsText([RANK0]));
    const p = poller(s.url());
    const good = await p.poll();
    expect(good.ok).toBe(true);
    s.set((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const bad = await p.poll();
    expect(bad.ok).toBe(false);
    expect(bad.message).toContain('HTTP 503');
    expect(bad.readAt).toBe(good.readAt);
    expect(figuresForRank(bad.engines ?? new Map(), 0)).toEqual(expected(RANK0));
  });

  it('refuses an answer larger than its bound while reading it', async () => {
    const s = await server('');
    s.set((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const line = `${'#'.repeat(1023)}\n`;
      for (let i = 0; i < 2048; i++) res.write(line); // 2 MiB, no Content-Length
      res.end();
    });
    const p = new EnginePoller({ url: s.url(), maxBytes: 1024 * 1024, intervalMs: 60_000 });
    pollers.push(p);
    const reading = await p.poll();
    expect(reading.ok).toBe(false);
    expect(reading.message).toContain('more than 1 MiB');
  });

  it('polls again every interval, and reads nothing once closed', async () => {
    const s = await server(vllmMetricsText([RANK0]));
    const p = new EnginePoller({ url: s.url(), intervalMs: 20 });
    pollers.push(p);
    p.start();
    await expect.poll(() => s.hits, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    p.close();
    await p.poll(); // settles a read that was under way when it closed
    const after = s.hits;
    const reading = await p.poll();
    expect(s.hits).toBe(after);
    expect(reading.ok).toBe(true);
  });
});
