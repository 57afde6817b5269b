// Test helpers: a plain zeromq subscriber / dealer and priming a publisher until it is heard.
import { Dealer, Subscriber } from 'zeromq';
import type { SimPublisher } from '../../electron/sim/publisher';

const END = Buffer.alloc(8, 0xff);

export interface Received {
  topic: string;
  seq: bigint;
  frames: number;
  payload: Buffer;
}

/** A SUB socket that collects every message it receives. */
export class Collector {
  readonly got: Received[] = [];
  private constructor(readonly sub: Subscriber) {}

  static connect(endpoint: string, topic = ''): Collector {
    const sub = new Subscriber({ linger: 0 });
    sub.connect(endpoint);
    sub.subscribe(topic);
    const c = new Collector(sub);
    void c.loop();
    return c;
  }

  static async bind(): Promise<{ c: Collector; endpoint: string }> {
    const sub = new Subscriber({ linger: 0 });
    await sub.bind('tcp://127.0.0.1:*');
    sub.subscribe('');
    const c = new Collector(sub);
    void c.loop();
    return { c, endpoint: sub.lastEndpoint ?? '' };
  }

  private async loop(): Promise<void> {
    try {
      for await (const frames of this.sub) {
        const [topic, seq, payload] = frames;
        this.got.push({
          topic: topic?.toString() ?? '',
          seq: seq?.length === 8 ? seq.readBigUInt64BE() : -1n,
          frames: frames.length,
          payload: payload ?? Buffer.alloc(0),
        });
      }
    } catch {
      // closed
    }
  }

  close(): void {
    this.sub.close();
  }
}

/** Step a manual simulator until a freshly connected subscriber sees traffic (slow joiner). */
export async function primeUntilReceived(sim: SimPublisher, cols: Collector[]): Promise<void> {
  const until = Date.now() + 10_000;
  while (cols.some((c) => c.got.length === 0)) {
    if (Date.now() > until) throw new Error('subscriber never received anything');
    await sim.publish(1);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Ask a replay endpoint from `start`; resolve with every reply up to and including the end marker. */
export async function askReplay(endpoint: string, start: bigint): Promise<Buffer[][]> {
  const d = new Dealer({ linger: 0, receiveTimeout: 10_000 });
  d.connect(endpoint);
  try {
    const seq = Buffer.alloc(8);
    seq.writeBigUInt64BE(start);
    await d.send(['', seq]);
    const out: Buffer[][] = [];
    for (;;) {
      const msg = await d.receive();
      out.push(msg);
      // The end marker: seq -1 (eight 0xFF bytes), after the topic frame when there is one.
      if (msg.some((f) => f.equals(END))) return out;
    }
  } finally {
    d.close();
  }
}
