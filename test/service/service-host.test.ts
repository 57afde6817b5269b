// The service host's protocol under plain Node, on a MessageChannel standing in for the port an
// Electron utility process gets (`process.parentPort`: messages wrapped in events). The same host
// code runs in serve's worker thread; here it runs in this thread, so its failures are visible.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { nodePort, parentPortOf } from '../../electron/host/host-port';
import { runServiceHost } from '../../electron/host/service-host';
import { ServiceLink } from '../../electron/host/service-link';
import { waitFor } from '../support/wait-for';

const dirs: string[] = [];
const links: ServiceLink[] = [];
afterEach(async () => {
  for (const link of links.splice(0)) if (!link.lost) await link.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A host on one end of a channel (shaped as Electron's parentPort), a link on the other. */
function hostAndLink(): { link: ServiceLink; closed: number[]; fail: (err: unknown) => void } {
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  port2.unref();
  const parentPort = {
    postMessage: (m: unknown) => port1.postMessage(m),
    on: (_e: 'message', l: (event: { data: unknown }) => void) =>
      port1.on('message', (data: unknown) => l({ data })),
  };
  const closed: number[] = [];
  const fail = runServiceHost(parentPortOf(parentPort), (code) => closed.push(code));
  const link = new ServiceLink(nodePort(port2), (why) => `lost: ${why}`);
  links.push(link);
  return { link, closed, fail };
}

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-host-'));
  dirs.push(dir);
  return dir;
}

const options = (dir: string) => ({
  dataDir: dir,
  demo: true,
  persistProfiles: false,
  transport: 'ipc' as const,
  frameIntervalMs: 20,
});

describe('the service host over a port', () => {
  it('starts the service, pushes frames to each attached renderer and relays its calls', async () => {
    const { link } = hostAndLink();
    await link.start(options(dataDir()));
    const frames: UpdateFrame[] = [];
    const client = link.connect((channel, payload) => {
      if (channel === 'update') frames.push(payload as UpdateFrame);
    });
    await waitFor(() => frames.length > 0, 'a first frame');
    await client.invoke('frames:ack', [frames[0]?.n]);
    await waitFor(() => (frames.at(-1)?.kpis.events ?? 0) > 0, 'the demo on screen');
    expect(await client.invoke('demo:set', [false])).toBeNull();
    await expect(client.invoke('no:such' as never, [])).rejects.toThrow(/unknown channel/);
    // A renderer that went away gets nothing more, and its calls are refused plainly.
    client.close();
    const count = frames.length;
    await expect(client.invoke('app:info', [])).rejects.toThrow(/no longer attached/);
    expect(frames.length).toBe(count);
  });

  it('sends no frame to a renderer whose transport is full, until it drains', async () => {
    const { link } = hostAndLink();
    await link.start(options(dataDir()));
    const acking = (into: UpdateFrame[]) => {
      const client = link.connect((_c, payload) => {
        into.push(payload as UpdateFrame);
        void client.invoke('frames:ack', [(payload as UpdateFrame).n]);
      });
      return client;
    };
    const full: UpdateFrame[] = [];
    const free: UpdateFrame[] = [];
    const blocked = acking(full);
    const other = acking(free);
    blocked.setWritable(false);
    // A call's answer proves the host has read the writable message sent before it.
    await blocked.invoke('app:info', []);
    const [fullBefore, freeBefore] = [full.length, free.length];
    await waitFor(() => free.length >= freeBefore + 3, 'three frames for the other renderer');
    expect(full.length).toBe(fullBefore);
    blocked.setWritable(true);
    await waitFor(() => full.length > fullBefore, 'frames again once it drained');
    // Gone before the service closes (afterEach), as a window goes: a frame still on its way
    // would be acknowledged by a client the host no longer knows ("no longer attached").
    blocked.close();
    other.close();
  });

  it('answers the transport calls: files as paths, /metrics from its registry', async () => {
    const dir = dataDir();
    const { link } = hostAndLink();
    await link.start(options(dir));
    const bad = path.join(dir, 'not-a-session.jsonl.gz');
    writeFileSync(bad, 'hello');
    const opened = await link.openSession(bad, 'not-a-session.jsonl.gz');
    expect(opened).toMatchObject({ status: 'failed', name: 'not-a-session.jsonl.gz' });
    const metrics = await link.metricsText();
    expect(metrics.text).toMatch(/^kvscope_\w+/m);
    expect(await link.ratesCsv()).toMatch(/^time/);
  });

  it('says why the service could not start, and ends', async () => {
    const { link, closed } = hostAndLink();
    const file = path.join(dataDir(), 'a-file');
    writeFileSync(file, '');
    await expect(link.start({ ...options(file), demo: false })).rejects.toThrow(/a-file/);
    await waitFor(() => closed.length === 1, 'the host to end');
    expect(closed).toEqual([1]);
  });

  it('on an exception nothing caught: reports it, fails what waits, closes, then ends', async () => {
    const { link, closed, fail } = hostAndLink();
    await link.start(options(dataDir()));
    const lost: string[] = [];
    link.onLost((reason) => lost.push(reason));
    fail(new Error('boom'));
    await waitFor(() => lost.length === 1, 'the fault report');
    expect(lost).toEqual(['lost: boom']);
    await expect(link.ratesCsv()).rejects.toThrow('lost: boom');
    // The host closes the service (sockets, recording) before it ends.
    await waitFor(() => closed.length === 1, 'the host to end');
    expect(closed).toEqual([1]);
  });
});
