// A publisher fast enough for 18,000 batches/s on a busy machine: the simulator's workload is
// encoded once up front (vLLM's map format, u64 hashes), then sent round and round with a fresh
// seq each time over a real ZeroMQ PUB socket on loopback, paced by elapsed time.
// With `fresh`, each round's hashes differ from every earlier round's and the batch ts follows the
// clock, so a long run keeps bringing new blocks as an engine does (the memory bench needs that:
// repeating the same 4,000 batches would only ever revisit their hashes). A fresh round ends by
// removing every block it left resident, so each round starts, like the first, on an empty cache
// (else each round's last resident blocks would stay resident forever under their old hashes).
import { Publisher } from 'zeromq';
import { encodeBatch } from '../../electron/sim/encode';
import { seqFrame } from '../../electron/sim/rank';
import type { RawEvent, SimHash } from '../../electron/sim/types';
import { Workload } from '../../electron/sim/workload';

const PAYLOADS = 4000;
const TICK_MS = 5;
/** At most this many messages per tick, so a stalled tick does not turn into one huge burst. */
const MAX_BURST = 1000;
const T0 = 1_767_225_600;
/** encodeBatch writes [ts, events, rank]: a fixarray byte, 0xcb, then ts's 8 bytes. */
const TS_OFFSET = 2;
const DRAIN_CHUNK = 256;

interface Payload {
  bytes: Uint8Array;
  /** Where each u64 hash's 8 bytes start (after its 0xcf). */
  hashAt: number[];
}

export interface FastPublisherOptions {
  seed?: number;
  /** New hashes every round and ts from the clock (see the head of this file). */
  fresh?: boolean;
}

/** Pre-encoded batches published at `rate` per second until closed. */
export class FastPublisher {
  sent = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending = false;

  private constructor(
    private readonly pub: Publisher,
    readonly endpoint: string,
    private readonly payloads: Payload[],
    private readonly fresh: boolean,
  ) {}

  /** Binds on 127.0.0.1 (a free port) and starts publishing. */
  static async start(rate: number, opts: FastPublisherOptions = {}): Promise<FastPublisher> {
    const workload = new Workload({ seed: opts.seed ?? 5, format: 'map', hash: 'int' });
    const payloads: Payload[] = [];
    const batches: RawEvent[][] = [];
    for (let i = 0; i < PAYLOADS; i++) batches.push(workload.nextBatch());
    if (opts.fresh) batches.push(...drained(batches));
    for (const [i, events] of batches.entries()) {
      const bytes = encodeBatch(T0 + i / 1000, events, 0, 'map');
      payloads.push({ bytes, hashAt: opts.fresh ? hashOffsets(bytes, events) : [] });
    }
    const pub = new Publisher({ linger: 0, sendHighWaterMark: 100_000 });
    await pub.bind('tcp://127.0.0.1:0');
    const p = new FastPublisher(pub, pub.lastEndpoint ?? '', payloads, opts.fresh ?? false);
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
            await this.pub.send([topic, seqFrame(BigInt(this.sent)), this.payload(rate)]);
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

  /** The next message's payload: as encoded, or (fresh) a copy with this round's hashes and ts. */
  private payload(rate: number): Uint8Array {
    const p = this.payloads[this.sent % this.payloads.length] as Payload;
    if (!this.fresh) return p.bytes;
    const round = Math.floor(this.sent / this.payloads.length);
    const out = Buffer.from(p.bytes);
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    view.setFloat64(TS_OFFSET, T0 + this.sent / rate);
    // XOR with a per-round salt: parent links within a round stay intact, rounds never collide.
    const hi = Math.imul(round, 0x9e3779b1) >>> 0;
    const lo = Math.imul(round, 0x85ebca77) >>> 0;
    for (const at of p.hashAt) {
      view.setUint32(at, (view.getUint32(at) ^ hi) >>> 0);
      view.setUint32(at + 4, (view.getUint32(at + 4) ^ lo) >>> 0);
    }
    return out;
  }

  /** Stops publishing and closes the socket. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.pub.close();
  }
}

/** Batches removing every block that batches leave resident (per medium, 256 hashes a batch). */
function drained(batches: readonly RawEvent[][]): RawEvent[][] {
  const resident = new Map<string, Set<SimHash>>();
  const of = (medium: string | null): Set<SimHash> => {
    const m = medium ?? 'GPU';
    let set = resident.get(m);
    if (!set) resident.set(m, (set = new Set()));
    return set;
  };
  for (const e of batches.flat()) {
    if (e.type === 'AllBlocksCleared') resident.clear();
    else if (e.type === 'BlockStored') for (const h of e.block_hashes) of(e.medium).add(h);
    else for (const h of e.block_hashes) of(e.medium).delete(h);
  }
  const out: RawEvent[][] = [];
  for (const [medium, set] of resident) {
    const hashes = [...set];
    for (let i = 0; i < hashes.length; i += DRAIN_CHUNK) {
      const block_hashes = hashes.slice(i, i + DRAIN_CHUNK);
      out.push([{ type: 'BlockRemoved', block_hashes, medium, group_idx: null }]);
    }
  }
  return out;
}

/** The offsets of the u64 hashes of events in bytes (each found as 0xcf and its 8 bytes). */
function hashOffsets(bytes: Uint8Array, events: readonly RawEvent[]): number[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  let from = 0;
  const needle = Buffer.alloc(9);
  needle[0] = 0xcf;
  for (const e of events) {
    if (e.type === 'AllBlocksCleared') continue;
    const parent = e.type === 'BlockStored' ? [e.parent_block_hash] : [];
    // Hashes are written in event order, parent after the block hashes.
    for (const h of [...e.block_hashes, ...parent]) {
      if (typeof h !== 'bigint' || h < 2n ** 32n) continue;
      needle.writeBigUInt64BE(h, 1);
      const at = buf.indexOf(needle, from);
      if (at < 0) throw new Error(`hash ${h} not found in its encoded batch`);
      out.push(at + 1);
      from = at + 9;
    }
  }
  return out;
}
