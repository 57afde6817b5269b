// A publisher fast enough for 18,000 batches/s on a busy machine: the simulator's workload is
// encoded once up front (vLLM's map format, u64 hashes), then sent round and round with a fresh
// seq each time over a real ZeroMQ PUB socket on loopback, paced by elapsed time.
import { Publisher } from 'zeromq';
import { encodeBatch } from '../../electron/sim/encode';
import { seqFrame } from '../../electron/sim/rank';
import { Workload } from '../../electron/sim/workload';

const PAYLOADS = 4000;
const TICK_MS = 5;
/** At most this many messages per tick, so a stalled tick does not turn into one huge burst. */
const MAX_BURST = 1000;

/** Pre-encoded batches published at `rate` per second until closed. */
export class FastPublisher {
  sent = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending = false;

  private constructor(
    private readonly pub: Publisher,
    readonly endpoint: string,
    private readonly payloads: Uint8Array[],
  ) {}

  /** Binds on 127.0.0.1 (a free port) and starts publishing. */
  static async start(rate: number, seed = 5): Promise<FastPublisher> {
    const workload = new Workload({ seed, format: 'map', hash: 'int' });
    const payloads: Uint8Array[] = [];
    for (let i = 0; i < PAYLOADS; i++)
      payloads.push(encodeBatch(1_767_225_600 + i / 1000, workload.nextBatch(), 0, 'map'));
    const pub = new Publisher({ linger: 0, sendHighWaterMark: 100_000 });
    await pub.bind('tcp://127.0.0.1:0');
    const p = new FastPublisher(pub, pub.lastEndpoint ?? '', payloads);
    p.pace(rate);
    return p;
  }

  private pace(rate: number): void {
    const t0 = performance.now();
    const topic = Buffer.from('kv-events');
    this.timer = setInterval(() => {
      if (this.sending) return;
      const owed = Math.min(
        MAX_BURST,
        Math.floor(((performance.now() - t0) / 1000) * rate) - this.sent,
      );
      if (owed <= 0) return;
      this.sending = true;
      void (async () => {
        try {
          for (let i = 0; i < owed; i++) {
            const payload = this.payloads[this.sent % this.payloads.length] as Uint8Array;
            await this.pub.send([topic, seqFrame(BigInt(this.sent)), payload]);
            this.sent++;
          }
        } catch {
          // Closed while sending: the run is over.
        } finally {
          this.sending = false;
        }
      })();
    }, TICK_MS);
  }

  /** Stops publishing and closes the socket. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.pub.close();
  }
}
