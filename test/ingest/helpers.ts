// Test helpers for the ingest tests: a recording sink, free ports, warm-up.
import net from 'node:net';
import type { SourceConfig } from '../../electron/ingest/source-config';
import { encodeBatch } from '../../electron/sim/encode';
import type { IngestSink } from '../../shared/records';
import type {
  EventErrorRecord,
  EventRecord,
  GapRecord,
  ResetRecord,
  UndecodedRecord,
} from '../../shared/events';

export interface Recorded {
  sink: IngestSink;
  events: EventRecord[];
  /** Seq of every delivered batch or undecoded payload, in delivery order. */
  seqs: number[];
  undecoded: UndecodedRecord[];
  eventErrors: EventErrorRecord[];
  gaps: GapRecord[];
  resets: ResetRecord[];
}

/** A sink that keeps everything it is given. */
export function recordingSink(): Recorded {
  const r: Omit<Recorded, 'sink'> = {
    events: [],
    seqs: [],
    undecoded: [],
    eventErrors: [],
    gaps: [],
    resets: [],
  };
  const sink: IngestSink = {
    record(x) {
      switch (x.k) {
        case 'batch':
          r.seqs.push(x.meta.seq);
          for (const e of x.events) r.events.push(e);
          return;
        case 'undecoded':
          if (x.rec.seq !== null) r.seqs.push(x.rec.seq);
          r.undecoded.push(x.rec);
          return;
        case 'event-error':
          r.eventErrors.push(x.rec);
          return;
        case 'gap':
          r.gaps.push(x.rec);
          return;
        case 'reset':
          r.resets.push(x.rec);
          return;
      }
    },
  };
  return { ...r, sink };
}

/** A TCP port that was free a moment ago, with `count` consecutive free ports from it. */
export async function freePorts(count = 1): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    if (base + count > 65535) continue;
    let ok = true;
    for (let i = 1; i < count && ok; i++) ok = await portFree(base + i);
    if (ok) return base;
  }
  throw new Error('no free consecutive ports');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Publishes one batch at a time until `received()` turns positive (ZeroMQ's slow joiner). */
export async function warmUp(
  publish: () => Promise<void>,
  received: () => number,
  what = 'the first message',
): Promise<void> {
  const end = Date.now() + 8000;
  while (received() === 0) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await publish();
    const until = Date.now() + 30;
    while (received() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 3));
  }
}

/** A one-event batch (AllBlocksCleared) whose ts is its seq, so every payload differs. */
export const clearedBatch = (seq: number): Buffer =>
  Buffer.from(encodeBatch(1_700_000_000 + seq, [{ type: 'AllBlocksCleared' }], 0, 'map'));

/** A connect-mode source config on `endpoint` with no topic filter and no replay, `over` on top. */
export function sourceConfig(over: Partial<SourceConfig> & { endpoint: string }): SourceConfig {
  return {
    id: 'src',
    name: 'test',
    mode: 'connect',
    topic: '',
    replayEndpoint: null,
    profileId: null,
    ...over,
  };
}
