// The desktop's service process against a stand-in for Electron's utilityProcess: the fork runs
// the real service host in this thread behind a MessageChannel shaped as the child's parentPort,
// and the stand-in's exit is a crash of that process.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { parentPortOf } from '../../electron/host/host-port';
import { runServiceHost } from '../../electron/host/service-host';
import { waitFor } from '../support/wait-for';

/** A utility process stand-in: postMessage / 'message' / 'exit' / kill, as Electron's has them. */
class FakeChild extends EventEmitter {
  readonly port: MessageChannel['port2'];
  killed = 0;
  constructor(readonly entry: string) {
    super();
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    port2.unref();
    this.port = port2;
    port2.on('message', (m: unknown) => this.emit('message', m));
    // The child's side: the real host, on a parentPort whose messages come wrapped in events.
    runServiceHost(
      parentPortOf({
        postMessage: (m) => port1.postMessage(m),
        on: (_e, l) => port1.on('message', (data: unknown) => l({ data })),
      }),
      (code) => this.emit('exit', code),
    );
  }
  postMessage(m: unknown): void {
    this.port.postMessage(m);
  }
  kill(): boolean {
    this.killed++;
    return true;
  }
}

const forked: FakeChild[] = [];
vi.mock('electron', () => ({
  utilityProcess: {
    fork: (entry: string) => {
      const child = new FakeChild(entry);
      forked.push(child);
      return child;
    },
  },
}));

const { startServiceProcess } = await import('../../electron/main/service-process');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-utility-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options = {
  dataDir: dir,
  demo: true,
  persistProfiles: false,
  transport: 'ipc' as const,
  frameIntervalMs: 20,
};

describe('the desktop service process', () => {
  it('forks the bundled host and relays frames and calls over its port', async () => {
    const proc = await startServiceProcess('/app/dist/service-host.cjs', options);
    expect(forked.at(-1)?.entry).toBe('/app/dist/service-host.cjs');
    const frames: UpdateFrame[] = [];
    const client = proc.link.connect((channel, payload) => {
      if (channel !== 'update') return;
      frames.push(payload as UpdateFrame);
      void client.invoke('frames:ack', [(payload as UpdateFrame).n]);
    });
    await waitFor(() => (frames.at(-1)?.kpis.events ?? 0) > 0, 'the demo on screen');
    expect(await client.invoke('app:info', [])).toMatchObject({ transport: 'ipc' });
    // The close guard reads this synchronously: the host keeps it current.
    await waitFor(() => proc.link.unsaved, 'the unsaved flag');
    // The window goes before the service, as in the app: a frame still on its way when the host
    // closed would be acknowledged by a client the host no longer knows ("no longer attached").
    client.close();
    await proc.close();
    expect(forked.at(-1)?.killed).toBe(1);
  });

  it('tells a crash of the process with what is kept and what to do', async () => {
    // No demo: nothing of the stand-in's service stays open after its "crash".
    const proc = await startServiceProcess('/app/dist/service-host.cjs', {
      ...options,
      demo: false,
    });
    const lost: string[] = [];
    proc.link.onLost((reason) => lost.push(reason));
    forked.at(-1)?.emit('exit', 139);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/service process stopped \(exit code 139\)/);
    expect(lost[0]).toContain(dir);
    expect(lost[0]).toMatch(/Start KV Scope again/);
    await expect(proc.link.ratesCsv()).rejects.toThrow(/exit code 139/);
  });
});
