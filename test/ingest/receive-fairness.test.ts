// A flat-out stream must not take the event loop for itself: zeromq's receive() resolves at once
// while messages wait, so without a turn now and then, timers and I/O callbacks (the recording's
// gzip and file writes, the update frames) would wait until the stream pauses.
import { afterEach, describe, expect, it } from 'vitest';
import { KvSource } from '../../electron/ingest/kv-source';
import type { IngestSink } from '../../shared/records';
import { cli, stopChild, type Child } from '../support/crash-run';
import { ensureBuilt } from '../support/built-app';
import { waitFor } from '../support/wait-for';

let sim: Child | undefined;
let source: KvSource | undefined;
afterEach(async () => {
  await source?.close();
  await stopChild(sim);
});

/** Busy for `ms` milliseconds: a sink slower than the stream, so a backlog builds up. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the receive loop under a flood', () => {
  it('lets timers run while a backlog of messages waits', async () => {
    ensureBuilt();
    sim = cli(['sim', '--port', '0', '--no-replay', '--rate', '20000']);
    const child = sim;
    await waitFor(() => /PUB bound (tcp:\/\/\S+),/.test(child.stderr()), 'the simulator', 30_000);
    const endpoint = /PUB bound (tcp:\/\/\S+),/.exec(child.stderr())?.[1] ?? '';
    let batches = 0;
    const sink: IngestSink = {
      record: (r) => {
        if (r.k !== 'batch') return;
        batches += 1;
        spin(0.3);
      },
    };
    source = new KvSource(
      {
        id: 's',
        name: 's',
        endpoint,
        mode: 'connect',
        topic: '',
        replayEndpoint: null,
        profileId: null,
      },
      sink,
    );
    await source.start();
    await waitFor(() => batches > 0, 'the first batch', 20_000);
    // From here the sink takes 0.3 ms a batch against a publisher sending far faster: a backlog.
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const from = batches;
    await waitFor(() => batches - from >= 1000, '1,000 batches through the slow sink', 30_000);
    clearInterval(timer);
    // 1,000 batches at 0.3 ms or more each: a timer every 5 ms gets well over 10 turns (without
    // the receive loop's yield it got 5 in 3,000 batches; with it, 330).
    expect(ticks).toBeGreaterThan(10);
  }, 60_000);
});
