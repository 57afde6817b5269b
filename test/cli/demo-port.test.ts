// The built-in demo's ports come from --demo-port: 0 picks free ones and serve says which, a
// port given is used as given, and a taken one stops serve with a line that says what to do. And
// `kvscope capture` refuses a second --endpoint, pointing at --dp.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Subscriber } from 'zeromq';
import { freePorts } from '../ingest/helpers';
import {
  ensureBuilt,
  removeDir,
  runCli,
  startServe,
  tempDir,
  type ServeProcess,
} from '../support/e2e-harness';

let dir: string;
const running: ServeProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = await tempDir('demo-port');
}, 180_000);

afterAll(async () => {
  for (const s of running) await s.stop();
  await removeDir(dir);
});

/** The demo endpoint serve printed. */
function demoEndpoint(serve: ServeProcess): string {
  const m = /The demo engine publishes on (tcp:\/\/127\.0\.0\.1:(\d+))/.exec(serve.stdout());
  if (!m?.[1]) throw new Error(`serve did not say where the demo publishes:\n${serve.stdout()}`);
  return m[1];
}

/** Takes one message off a PUB endpoint: the demo really publishes there. */
async function oneMessage(endpoint: string): Promise<number> {
  const sub = new Subscriber();
  sub.connect(endpoint);
  sub.subscribe();
  try {
    const [, seq] = await sub.receive();
    return seq?.byteLength ?? 0;
  } finally {
    sub.close();
  }
}

describe('the demo ports', () => {
  it('picks free ports with --demo-port 0 and says which, publishing there', async () => {
    const serve = await startServe(`${dir}/zero`, ['--demo', '--demo-port', '0']);
    running.push(serve);
    const endpoint = demoEndpoint(serve);
    expect(serve.stdout()).toMatch(/replay tcp:\/\/127\.0\.0\.1:\d+/);
    expect(await oneMessage(endpoint)).toBe(8);
    await serve.stop();
  });

  it('publishes on the port given, rank 1 on the next one', async () => {
    const base = await freePorts(4);
    const serve = await startServe(`${dir}/fixed`, ['--demo', '--demo-port', String(base)]);
    running.push(serve);
    expect(demoEndpoint(serve)).toBe(`tcp://127.0.0.1:${base}`);
    expect(serve.stdout()).toContain(`replay tcp://127.0.0.1:${base + 2}`);
    expect(await oneMessage(`tcp://127.0.0.1:${base + 1}`)).toBe(8);
    await serve.stop();
  });

  it('stops serve with one clear line when a port of the demo is taken', async () => {
    const base = await freePorts(4);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(base + 1, '127.0.0.1', () => r()));
    try {
      const run = runCli([
        'serve',
        '--port',
        '0',
        '--data-dir',
        `${dir}/taken`,
        '--demo',
        '--demo-port',
        String(base),
      ]);
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(`the demo's ports ${base} to ${base + 3} are not all free`);
      expect(run.stderr()).toContain('pass another --demo-port, or 0 to pick free ones');
      expect(run.stdout()).not.toContain('serving on');
    } finally {
      blocker.close();
    }
  });

  it('refuses a --demo-port that is not a port', async () => {
    const run = runCli(['serve', '--port', '0', '--data-dir', `${dir}/bad`, '--demo-port', 'x']);
    expect(await run.exited).not.toBe(0);
    expect(run.stderr()).toContain('--demo-port x: not a port (0 to 65535)');
  });
});

describe('kvscope capture with several --endpoint', () => {
  it('refuses the second one, pointing at --dp for a data-parallel engine', async () => {
    const run = runCli([
      'capture',
      '--endpoint',
      'tcp://127.0.0.1:5557',
      '--endpoint',
      'tcp://127.0.0.1:5558',
    ]);
    expect(await run.exited).not.toBe(0);
    expect(run.stderr()).toContain('--endpoint given twice');
    expect(run.stderr()).toContain('--dp N');
    expect(run.stdout()).toBe('');
  });
});
