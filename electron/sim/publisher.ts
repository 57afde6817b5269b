// SimPublisher: publishes an engine-like workload exactly as vLLM's ZmqEventPublisher does,
// one PUB (+ optional ROUTER replay) per data-parallel rank, paced or stepped by hand.
import { encodeBatch, garbagePayload } from './encode';
import { RankSockets, type ReplayRequestLog } from './rank';
import { Truth, sumCounts } from './truth';
import type { PublishedBatch, SimOptions, SimStats } from './types';
import { SharedTraffic, Workload } from './workload';
import { PROFILE_LIMITS, rankPortsOverlap } from '../../shared/profile-rules';

/** vLLM's default replay buffer (`buffer_steps`), in batches: what a gap can be recovered from. */
export const VLLM_BUFFER_STEPS = 10_000;

const VIRTUAL_EPOCH = 1_767_225_600;
const TICK_MS = 20;
const MAX_BURST = 500;
/** Where several ranks on port 0 look for a free run of ports: below the OS's ephemeral range. */
const BASE_LOW = 20_000;
const BASE_HIGH = 32_768;

interface Rank {
  index: number;
  sockets: RankSockets;
  workload: Workload;
  truth: Truth;
  seq: bigint;
  /** Messages since start (restarts included): drives garbageEvery and the virtual clock. */
  sent: number;
}

/** A simulated vLLM engine's KV event publisher (one per data-parallel rank). */
export class SimPublisher {
  readonly ranks: { pubEndpoint: string; replayEndpoint: string | null }[];
  private readonly listeners = new Set<(b: PublishedBatch) => void>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private ticking = false;
  /** Seconds added to the wall clock's ts (SimOptions.clockOffsetS; a restart may change it). */
  private clockOffsetS: number;

  private constructor(
    private readonly opts: SimOptions,
    private readonly state: Rank[],
  ) {
    this.clockOffsetS = opts.clockOffsetS ?? 0;
    this.ranks = state.map((r) => ({
      pubEndpoint: r.sockets.pubEndpoint,
      replayEndpoint: r.sockets.replayEndpoint,
    }));
  }

  /** Open every rank's sockets and start pacing when `rate` > 0. */
  static async start(opts: SimOptions): Promise<SimPublisher> {
    validate(opts);
    const dp = opts.dp ?? 1;
    if (dp === 1 || opts.bind === false || (opts.port ?? 0) !== 0) return SimPublisher.open(opts);
    // Port 0 with several ranks: rank r binds base + r (its replay, unless given, base + dp + r),
    // as vLLM's data-parallel ranks do. The base is random below the OS's own free-port range
    // (Linux's starts at 32768), since outgoing connections take their ports there and cut a
    // run of 64 more often than not; while a port of the range is taken, another base is tried.
    const replayFollows = opts.replay === true || opts.replay === 0;
    for (let attempt = 1; ; attempt++) {
      const base = BASE_LOW + Math.floor(Math.random() * (BASE_HIGH - BASE_LOW - 2 * dp));
      try {
        return await SimPublisher.open({
          ...opts,
          port: base,
          ...(replayFollows ? { replay: base + dp } : {}),
        });
      } catch (err) {
        if (attempt >= 16 || !isAddressInUse(err)) throw err;
      }
    }
  }

  private static async open(opts: SimOptions): Promise<SimPublisher> {
    const dp = opts.dp ?? 1;
    const seed = opts.seed ?? 1;
    const replay = opts.replay ?? false;
    const state: Rank[] = [];
    const shared = dp > 1 ? new SharedTraffic() : undefined;
    let port = opts.port ?? 0;
    let replayPort = replay === false ? null : replay === true ? 0 : replay;
    try {
      for (let index = 0; index < dp; index++) {
        const sockets = await RankSockets.open({
          rank: index,
          topic: opts.topic ?? 'kv-events',
          host: opts.host ?? '127.0.0.1',
          port,
          connectTo: opts.bind === false ? (opts.connectTo ?? null) : null,
          replayPort,
          replayBuffer:
            opts.replayBuffer === 'unbounded' ? Infinity : (opts.replayBuffer ?? VLLM_BUFFER_STEPS),
          replayTopicFrame: opts.replayTopicFrame ?? false,
          pubHighWaterMark: opts.pubHighWaterMark ?? 100_000,
        });
        if (index === 0) {
          // Later ranks bind base + rank: the base is the port rank 0 was given.
          if (port === 0 && opts.bind !== false) port = endpointPort(sockets.pubEndpoint);
          if (replayPort === 0 && sockets.replayEndpoint !== null) {
            replayPort = endpointPort(sockets.replayEndpoint);
          }
        }
        const workload = new Workload({
          seed,
          rank: index,
          format: opts.format,
          hash: opts.hash,
          gpuBlocks: opts.gpuBlocks,
          cpuBlocks: opts.cpuBlocks,
          eventsPerBatch: opts.eventsPerBatch,
          clearEvery: opts.clearEvery,
          reannounce: opts.reannounce,
          stickiness: opts.stickiness,
          shared,
        });
        state.push({ index, sockets, workload, truth: new Truth(), seq: 0n, sent: 0 });
      }
    } catch (err) {
      await Promise.all(state.map((r) => r.sockets.close()));
      throw err;
    }
    const sim = new SimPublisher(opts, state);
    if ((opts.rate ?? 0) > 0) sim.startPacing(opts.rate ?? 0);
    return sim;
  }

  /** Publish `batches` (default 1) messages on every rank, now; resolves once handed to ZeroMQ. */
  async publish(batches = 1): Promise<void> {
    if (this.closed) throw new Error('SimPublisher is closed');
    await Promise.all(this.state.map((r) => this.publishOn(r, batches)));
  }

  /**
   * A publisher restart: seq starts again at 0, the replay buffer and the caches start empty.
   * `clockOffsetS`: the new process's clock offset (an engine restarted on another host).
   */
  restart(rank?: number, clockOffsetS?: number): void {
    if (clockOffsetS !== undefined) this.clockOffsetS = clockOffsetS;
    for (const r of this.pick(rank)) {
      r.seq = 0n;
      r.sockets.resetBuffer();
      r.workload.reset();
      r.truth.restart();
    }
  }

  /** Queue an AllBlocksCleared: the next batches carry it. */
  clear(rank?: number): void {
    for (const r of this.pick(rank)) r.workload.clear();
  }

  /** What has been published so far: per rank and in total. */
  stats(): SimStats {
    const ranks = this.state.map((r) => r.truth.snapshot(r.index));
    return { ranks, total: sumCounts(ranks) };
  }

  /** Messages ZeroMQ has taken on every rank's PUB socket (queued there, not known delivered). */
  handedToZmq(): number {
    return this.state.reduce((n, r) => n + r.sockets.handed, 0);
  }

  /** Seqs a rank holds for replay now (oldest first). */
  bufferedSeqs(rank = 0): number[] {
    return (this.state[rank]?.sockets.bufferedSeqs() ?? []).map(Number);
  }

  /** Every replay request a rank's ROUTER served, with what its buffer held then. */
  replayRequests(rank = 0): ReplayRequestLog[] {
    return this.state[rank]?.sockets.replayRequests() ?? [];
  }

  /** Be told of every message as it is published (raw events with token ids); returns unsubscribe. */
  onBatch(listener: (b: PublishedBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop publishing on the clock (what it published is final at once); replay still answers. */
  stopPacing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Stop pacing and close every socket. Safe to call twice. `lingerMs`: hand every message built
   * to ZeroMQ first and give it that long to deliver them (RankSockets.close); without it, what is
   * not out yet is dropped.
   */
  async close(lingerMs = 0): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await Promise.all(this.state.map((r) => r.sockets.close(lingerMs)));
  }

  private pick(rank?: number): Rank[] {
    if (rank === undefined) return this.state;
    const r = this.state[rank];
    if (!r) throw new Error(`no rank ${rank}: this simulator has ${this.state.length}`);
    return [r];
  }

  private async publishOn(r: Rank, n: number): Promise<void> {
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < n; i++) last = this.publishOne(r);
    await last;
  }

  /** Build, account and queue one message; the state changes synchronously, in seq order. */
  private publishOne(r: Rank): Promise<void> {
    const seq = r.seq;
    r.seq += 1n;
    r.sent++;
    const every = this.opts.faults?.garbageEvery ?? 0;
    const garbage = every > 0 && r.sent % every === 0;
    const events = garbage ? [] : r.workload.nextBatch();
    const ts = garbage ? 0 : this.now(r);
    const payload = garbage
      ? garbagePayload(r.sent)
      : encodeBatch(ts, events, r.index, this.opts.format);
    const dropped = this.opts.faults?.dropFromPub?.(seq, r.index) ?? false;
    r.truth.apply(Number(seq), events, garbage, dropped);
    const batch: PublishedBatch = {
      rank: r.index,
      seq: Number(seq),
      ts,
      events,
      payload,
      droppedFromPub: dropped,
      garbage,
    };
    for (const l of this.listeners) l(batch);
    return r.sockets.send(seq, payload, !dropped);
  }

  private now(r: Rank): number {
    if (this.opts.clock === 'virtual') return VIRTUAL_EPOCH + r.sent * 0.02 + 0.000123;
    return Date.now() / 1000 + this.clockOffsetS;
  }

  /** Batches owed = elapsed * rate: no drift, sent in small bursts every tick. */
  private startPacing(rate: number): void {
    const t0 = performance.now();
    let done = 0;
    this.timer = setInterval(
      () => {
        if (this.ticking || this.closed) return;
        const owed = Math.floor(((performance.now() - t0) / 1000) * rate) - done;
        if (owed <= 0) return;
        const n = Math.min(owed, MAX_BURST);
        done += n;
        this.ticking = true;
        Promise.all(this.state.map((r) => this.publishOn(r, n)))
          .catch((err: unknown) =>
            process.stderr.write(`kvscope sim: publish failed: ${String(err)}\n`),
          )
          .finally(() => {
            this.ticking = false;
          });
      },
      Math.max(1, Math.min(TICK_MS, Math.floor(1000 / rate))),
    );
  }
}

function validate(o: SimOptions): void {
  const intIn = (name: string, v: number | undefined, lo: number, hi: number): void => {
    if (v !== undefined && !(Number.isInteger(v) && v >= lo && v <= hi)) {
      throw new Error(`${name} must be an integer from ${lo} to ${hi}, got ${String(v)}`);
    }
  };
  if (o.format !== 'array' && o.format !== 'map')
    throw new Error(`format must be "array" or "map"`);
  if (o.hash !== 'int' && o.hash !== 'bytes') throw new Error(`hash must be "int" or "bytes"`);
  intIn('port', o.port, 0, 65535);
  intIn('dp', o.dp, 1, PROFILE_LIMITS.dpRanksMax);
  if (o.replayBuffer !== 'unbounded') intIn('replayBuffer', o.replayBuffer, 1, 10_000_000);
  intIn('pubHighWaterMark', o.pubHighWaterMark, 0, 10_000_000);
  if (typeof o.replay === 'number') intIn('replay port', o.replay, 0, 65535);
  if (o.rate !== undefined && !(Number.isFinite(o.rate) && o.rate >= 0)) {
    throw new Error(`rate must be a number >= 0 (batches per second per rank), got ${o.rate}`);
  }
  for (const [name, v] of [
    ['reannounce', o.reannounce],
    ['stickiness', o.stickiness],
  ] as const) {
    if (v !== undefined && !(v >= 0 && v <= 1))
      throw new Error(`${name} must be a share from 0 to 1, got ${String(v)}`);
  }
  if (o.bind === false && !o.connectTo)
    throw new Error('bind: false needs connectTo (tcp://host:port)');
  const dp = o.dp ?? 1;
  const p = o.port ?? 0;
  const rp = typeof o.replay === 'number' ? o.replay : 0;
  if (o.bind !== false && p > 0 && rp > 0 && rankPortsOverlap(p, rp, dp)) {
    throw new Error(`PUB ports ${p}..${p + dp - 1} and replay ports ${rp}..${rp + dp - 1} overlap`);
  }
}

function endpointPort(endpoint: string): number {
  return Number(/:(\d+)$/.exec(endpoint)?.[1] ?? 0);
}

function isAddressInUse(err: unknown): boolean {
  return /address already in use|EADDRINUSE/i.test(
    err instanceof Error ? err.message : String(err),
  );
}
