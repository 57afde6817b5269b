// A publisher for tests of live views: every batch stores one new chain of fresh blocks (never an
// extension of an old one), stamped with the wall clock, so tests know which rows are new, which
// chain is which, and how many blocks each second of event time holds.
import { RankSockets } from '../../electron/sim/rank';
import { encodeBatch } from '../../electron/sim/encode';
import type { RawBlockStored } from '../../electron/sim/types';

export interface StreamBatch {
  seq: number;
  ts: number;
  /** The chain's blocks as KV Scope keys them (decimal), root first. */
  hashes: string[];
}

/** One PUB socket on 127.0.0.1 publishing fresh chains, by hand or paced. */
export class ChainStream {
  readonly batches: StreamBatch[] = [];
  private seq = 0n;
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly sockets: RankSockets) {}

  static async start(): Promise<ChainStream> {
    const sockets = await RankSockets.open({
      rank: 0,
      topic: 'kv-events',
      host: '127.0.0.1',
      port: 0,
      connectTo: null,
      replayPort: null,
      replayBuffer: 10,
      replayTopicFrame: false,
    });
    return new ChainStream(sockets);
  }

  get endpoint(): string {
    return this.sockets.pubEndpoint;
  }

  /** Publishes `n` batches now, each one new chain of 1 to 4 blocks (by seq). */
  async publish(n = 1): Promise<void> {
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < n; i++) {
      const seq = this.seq;
      this.seq += 1n;
      const length = Number(seq % 4n) + 1;
      const hashes = Array.from({ length }, (_, j) => 7_000_000_000n + seq * 10n + BigInt(j));
      const event: RawBlockStored = {
        type: 'BlockStored',
        block_hashes: hashes,
        parent_block_hash: null,
        token_ids: Array.from({ length: length * 16 }, (_, t) => t),
        block_size: 16,
        lora_id: null,
        medium: 'GPU',
        lora_name: null,
        extra_keys: null,
        group_idx: null,
        kv_cache_spec_kind: null,
        kv_cache_spec_sliding_window: null,
      };
      const ts = Date.now() / 1000;
      this.batches.push({ seq: Number(seq), ts, hashes: hashes.map(String) });
      last = this.sockets.send(seq, encodeBatch(ts, [event], 0, 'map'), true);
    }
    await last;
  }

  /** Publishes `perSec` batches a second until stopped. */
  pace(perSec: number): void {
    this.stop();
    this.timer = setInterval(() => void this.publish(1), Math.round(1000 / perSec));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Blocks stored in one second of event time (floor(ts) === sec), over batches from `fromSeq`. */
  storedIn(sec: number, fromSeq = 0): number {
    return this.batches
      .filter((b) => b.seq >= fromSeq && Math.floor(b.ts) === sec)
      .reduce((sum, b) => sum + b.hashes.length, 0);
  }

  async close(): Promise<void> {
    this.stop();
    await this.sockets.close();
  }
}
