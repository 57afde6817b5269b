// Pins what `kvscope capture` prints, byte for byte, for every wire variant it takes: the vLLM
// fixtures (map-encoded and positional events, hashes above 2^63), bytes hashes, negative and
// every width of int hashes, odd timestamps, escapes, bad events and UNDECODED lines. A faster
// formatter must print exactly this.
import { spawn } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureVariantMessages, SENTINEL_TS } from '../support/capture-variants';
import { CLI as BUILT_CLI, ensureBuilt, ROOT } from '../support/built-app';
import { StreamPublisher } from '../support/stream-publisher';

// KVSCOPE_CLI points at another bundle: how the pinned output was taken from the code before a
// change (`KVSCOPE_CLI=/elsewhere/dist/cli.cjs npx vitest run -u test/cli/capture-output.test.ts`).
const CLI = process.env.KVSCOPE_CLI ?? BUILT_CLI;

beforeAll(() => {
  if (process.env.KVSCOPE_CLI === undefined) ensureBuilt();
}, 180_000);

const open: StreamPublisher[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Streams the pinned messages into `capture ARGS` and stops it (SIGINT) once the last one printed. */
async function captureStream(args: string[]): Promise<Run> {
  const pub = await StreamPublisher.bind();
  open.push(pub);
  const child = spawn(process.execPath, [CLI, 'capture', '--endpoint', pub.endpoint, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const last = String(SENTINEL_TS);
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (stdout.includes(last)) child.kill('SIGINT');
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await pub.subscribed();
  await pub.send(captureVariantMessages());
  return { code: await closed, stdout, stderr };
}

/** The stderr lines that do not name the random endpoint. */
const stableStderr = (err: string): string =>
  err
    .split('\n')
    .filter(
      (l) => l.startsWith('# event ') || l.startsWith('# done:') || l.startsWith('# summary '),
    )
    .join('\n') + '\n';

describe('kvscope capture output (pinned)', () => {
  it('prints the JSON lines of every wire variant exactly as pinned', async () => {
    const r = await captureStream(['--json']);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot('../fixtures/capture/variants.jsonl');
    await expect(stableStderr(r.stderr)).toMatchFileSnapshot(
      '../fixtures/capture/variants.stderr.txt',
    );
    for (const line of r.stdout.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.stdout).not.toMatch(/secret/);
  });

  it('prints the readable lines of every wire variant exactly as pinned', async () => {
    const r = await captureStream([]);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot('../fixtures/capture/variants.txt');
  });
});
