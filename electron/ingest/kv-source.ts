// One subscribed endpoint: SUB socket → parse → decode (redacted) → sequencer → sink, with health.
import { Subscriber } from 'zeromq';
import type { SourceCounters, SourceHealth, SourceState } from '../../shared/api-types';
import {
  batchTime,
  decodeBatch,
  type DecodeOptions,
  type DecodeResult,
  type RecordOrigin,
} from '../wire/decode-batch';
import { FingerprintBuilder } from '../wire/fingerprint';
import { parseMessage, topicText } from '../wire/message';
import { CLOCK_OFFSET_MIN_S, type IngestSink } from '../../shared/records';
import { endpointHostName, hostNotFoundCode } from './host-lookup';
import { streamReplay } from './replay-client';
import { Sequencer, type SettledGap } from './sequencer';
import { DEFAULT_STALL_AFTER_SEC, validateEndpoint, type SourceConfig } from './source-config';
import {
  silenceCase,
  silenceHint,
  socketErrorText,
  type Silence,
  type SilenceCase,
} from './source-hint';
import { llmdTopicSource, topicSourceName } from './topic-name';

export interface KvSourceOptions {
  /** A replay answer with no progress for this long is over (default 3000 ms). */
  replayIdleMs?: number;
  /** With a replay endpoint: silent this long, ask once for anything after the last seq (default 1000 ms). */
  probeAfterMs?: number;
  maxHeldBatches?: number;
  maxHeldBytes?: number;
  /**
   * Asked before each receive: a promise holds receiving until it settles (a slow consumer's
   * backpressure; ZeroMQ queues meanwhile, and what its high-water mark drops shows as a gap).
   */
  beforeReceive?: () => Promise<void> | null;
  /**
   * A consumer that prints batches straight from their bytes (capture --json): offered each
   * batch in seq order before it is decoded; returns how many events it took, or -1 to have it
   * decoded and delivered as usual. A batch taken is counted but not seen by the fingerprint.
   */
  takeBatch?: (seq: number, payload: Uint8Array) => number;
  /**
   * An earlier subscription to this same stream (a reconnect): its counters go on, and the stream
   * continues from its last settled seq (null: it settled none). lastPayload, that seq's batch,
   * tells at the first gap whether the engine restarted meanwhile (sequencer.ts).
   */
  resume?: { lastSeq: number | null; lastPayload?: Uint8Array; counters: SourceCounters };
}

type StatusListener = (s: SourceHealth) => void;

// A batch is sequenced as its payload bytes (they tell a duplicate from a restart) and decoded
// only when delivered: what a gap holds costs its bytes, and a dropped duplicate costs nothing.
type Arrival = Uint8Array;

const samePayload = (a: Arrival, b: Arrival): boolean =>
  a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

/** A source's counters before anything arrived. */
export const zeroCounters = (): SourceCounters => ({
  messages: 0,
  events: 0,
  bytes: 0,
  gaps: 0,
  recovered: 0,
  lost: 0,
  duplicates: 0,
  resets: 0,
  undecoded: 0,
  eventErrors: 0,
  oversized: 0,
  replayRejected: 0,
});

/**
 * Messages received before they are handled together (see burst). Handled so, the live path took
 * 30.6 µs of CPU a message against 32.6 one by one (medians of 7 alternating runs).
 */
const BURST_MAX = 64;
/** Longest the receive loop keeps the event loop to itself under a flat-out stream. */
const YIELD_EVERY_MS = 10;
/** Messages between two looks at the clock for that (a message costs 5-50 µs). */
const CHECK_EVERY = 16;
/**
 * A first batch at or below this seq, from a publisher that was not listening when we first
 * connected, is read from seq 0 (see onMessage). libzmq retries a refused connect every 100 ms, so
 * an engine that binds after us publishes a few batches, at most 100 ms of them, before our
 * subscription reaches it: ZeroMQ's slow joiner. A larger seq is a publisher that was up already
 * (a port forward opened late, say): a mid-stream join, not a loss.
 */
const MISSED_START_MAX_SEQ = 10_000n;
/** How long a connection that libzmq ended with no retry waits before it is made again. */
const RECONNECT_ENDED_MS = 1000;

/** The number of the latest KvSource made in this process (SourceHealth.subscription). */
let lastSubscription = 0;

/** A KV event subscription with gap recovery and health; delivers to its sink in seq order. */
export class KvSource {
  private sock: Subscriber | null = null;
  /** This subscription's number: a connection connected again or edited is a new one. */
  private readonly subscription = (lastSubscription += 1);
  private state: SourceState = 'connecting';
  private readonly counters = zeroCounters();
  private lastError: string | null = null;
  /** The replay warning lastError shows, if it shows one: a replay that answers takes it back. */
  private replayWarning: string | null = null;
  /** A check of the replay endpoint is under way (see recheckReplay). */
  private rechecking = false;
  /**
   * A replay went unanswered while the live stream was silent too (a paused engine, not a wrong
   * endpoint): the endpoint is asked again once the stream is back (see replayFailed).
   */
  private replayUnverified = false;
  /** Times the last peer hung up: a replay that spans one was asked of an engine that was down. */
  private hangups = 0;
  private hint: string | null = null;
  /** The silence the hint tells of, while it tells of one (null: no hint, or a hang-up's). */
  private hintCase: SilenceCase | null = null;
  /** Whether a ZeroMQ peer ever connected: tells "never connected" from "connected and silent". */
  private peerConnected = false;
  /** When the first handshake was made, before any message: a silence is counted from there. */
  private firstHandshakeAt: number | null = null;
  /** A connect was refused (nobody listened) before any batch came: see MISSED_START_MAX_SEQ. */
  private refusedBeforeFirstBatch = false;
  /**
   * The clock offset last said to the sink (null: none yet, or the engine restarted since): the
   * next batch delivered as it arrives measures it (see measureClock).
   */
  private clockOffsetS: number | null = null;
  /** While a live message is sequenced: when it arrived (ms); null for replayed batches. */
  private arrivedAtMs: number | null = null;
  /** When the clock offset was last measured (ms, our clock). */
  private clockMeasuredAtMs = 0;
  /** The endpoint's host name did not resolve when looked up at start (connect only). */
  private hostNotFound: { host: string; code: string } | null = null;
  /**
   * TCP connections that closed before a ZeroMQ handshake, with none ever made: whatever listens
   * there is no ZeroMQ publisher (an HTTP port, say). ZeroMQ retries every 100 ms, so the state
   * must not follow each attempt.
   */
  private failedHandshakes = 0;
  /** The TCP connection up now has completed its ZeroMQ handshake. */
  private handshaken = false;
  /**
   * When the last connection closed with no reconnect scheduled after it (null: none pending).
   * libzmq ends a connection for good when the peer is ZeroMQ of the wrong type (a SUB, the
   * replay port's ROUTER, a TCP self-connect on an ephemeral port): no retry ever follows, and a
   * publisher started there later would never be heard. The tick connects again instead.
   */
  private endedAt: number | null = null;
  /**
   * Bind: clients that connected in and made no ZeroMQ handshake yet. A browser, curl or a health
   * check on the port is no publisher, so an accept alone does not make the source "connected".
   */
  private unshakenAccepts = 0;
  /** TCP peers connected now: a killed engine closes its socket, so this drops at once. */
  private peersUp = 0;
  /** Bind: several publishers were connected at once, and lastError said so. */
  private sharedEndpointSaid = false;
  /** The last peer hung up and none came back yet: the hint says so, silence does not override it. */
  private peerHungUp = false;
  private lastMessageAt: number | null = null;
  /** Event time of the last batch delivered (null before one). */
  lastBatchTs: number | null = null;
  private readonly startedAt = Date.now();
  private readonly fingerprint = new FingerprintBuilder();
  private readonly listeners = new Set<StatusListener>();
  private readonly replays = new Set<AbortController>();
  private readonly seq: Sequencer<Arrival>;
  private readonly stallMs: number;
  private readonly replayIdleMs: number;
  private readonly probeAfterMs: number;
  private readonly decodeOptions: DecodeOptions;
  private readonly beforeReceive: (() => Promise<void> | null) | undefined;
  private readonly takeBatch: ((seq: number, payload: Uint8Array) => number) | undefined;
  private timer: NodeJS.Timeout | null = null;
  private tickMs = 1000;
  private lastTickAt = 0;
  private messagesAtTick = 0;
  private quietMs = 0;
  /** Receiving waits on beforeReceive: live batches queue unread, so silence says nothing. */
  private receiveHeld = false;
  /** The name shown: the configured one, or what the first llm-d topic says (see topic-name.ts). */
  private name: string;
  /** No name was given (the name is the endpoint) and no message has been read yet. */
  private nameFromTopic: boolean;
  private closed = false;
  /**
   * Messages received and not handled yet: receive() resolves at once while messages wait, and
   * handling them together once those run out (or BURST_MAX are in) keeps the path's code and
   * structures in the CPU's caches between messages.
   */
  private burst: Buffer[][] = [];
  private drainSoon = false;
  private readonly drainLater = (): void => {
    this.drainSoon = false;
    this.drainBurst();
  };
  /** The source handles no more messages: one threw (see drainBurst), or stopHandling() ran. */
  private handlingStopped = false;
  /** Who the decoded records are from (one object for every batch: the decoder only reads it). */
  private readonly origin: RecordOrigin;

  constructor(
    readonly cfg: SourceConfig,
    private readonly sink: IngestSink,
    opts: KvSourceOptions = {},
  ) {
    this.stallMs = (cfg.stallAfterSec ?? DEFAULT_STALL_AFTER_SEC) * 1000;
    this.name = cfg.name;
    this.origin = { source: cfg.id, seq: 0 };
    this.nameFromTopic = cfg.name === cfg.endpoint;
    this.replayIdleMs = opts.replayIdleMs ?? 3000;
    this.probeAfterMs = opts.probeAfterMs ?? 1000;
    this.beforeReceive = opts.beforeReceive;
    this.takeBatch = opts.takeBatch;
    // Every sink (the recording, the model, the analysis, the tally) takes u64 hashes as parts.
    this.decodeOptions =
      cfg.maxPayloadBytes === undefined
        ? { hashParts: true }
        : { hashParts: true, maxPayloadBytes: cfg.maxPayloadBytes };
    this.seq = new Sequencer<Arrival>(
      {
        replay: cfg.replayEndpoint !== null,
        same: samePayload,
        replayIdleMs: this.replayIdleMs,
        ...(opts.maxHeldBatches === undefined ? {} : { maxHeldBatches: opts.maxHeldBatches }),
        ...(opts.maxHeldBytes === undefined ? {} : { maxHeldBytes: opts.maxHeldBytes }),
      },
      {
        deliver: (seq, item) => this.deliverPayload(seq, item),
        gap: (g) => this.onGap(g),
        reset: (prev, item) => this.onReset(prev, decodeBatch(item, this.decodeOptions)),
        duplicate: () => void this.counters.duplicates++,
        rejected: () => void this.counters.replayRejected++,
        foreign: (seq) => this.onForeignReplay(seq),
        badSeq: (seq, item, newest) => this.onBadSeq(seq, item, newest),
        request: (id, from) => this.replay(id, from),
      },
    );
    if (opts.resume !== undefined) {
      Object.assign(this.counters, opts.resume.counters);
      const { lastSeq, lastPayload } = opts.resume;
      if (lastSeq !== null) this.seq.resumeAfter(BigInt(lastSeq), lastPayload);
    }
  }

  /** The highest seq settled (delivered, or counted lost); null before the first batch. */
  lastSeq(): number | null {
    const last = this.seq.lastSeq;
    return last === null || last < 0n ? null : Number(last);
  }

  /** The payload of the last settled seq's batch, while it is kept (see resume). */
  lastPayload(): Uint8Array | undefined {
    return this.seq.lastItem();
  }

  /** Opens the socket (connect or bind) and starts receiving. Rejects (state error) if it cannot. */
  async start(): Promise<void> {
    if (this.sock !== null || this.closed) return;
    const cfg = this.cfg;
    try {
      validateEndpoint(cfg.endpoint);
      if (cfg.replayEndpoint !== null) validateEndpoint(cfg.replayEndpoint, 'replay endpoint');
    } catch (e) {
      this.fail((e as Error).message);
      throw e;
    }
    this.lookUpHost();
    const sock = new Subscriber({ linger: 0 });
    this.sock = sock;
    if (cfg.topic === '') sock.subscribe();
    else sock.subscribe(cfg.topic);
    // A TCP connection is not yet a publisher: only a ZeroMQ handshake makes it one.
    sock.events.on('connect', () => {
      this.peersUp++;
      this.handshaken = false;
    });
    sock.events.on('handshake', () => {
      this.handshaken = true;
      if (this.unshakenAccepts > 0) this.unshakenAccepts--;
      if (cfg.mode === 'bind') this.checkSharedEndpoint();
      this.peerConnected = true;
      if (this.lastMessageAt === null && this.firstHandshakeAt === null) {
        this.firstHandshakeAt = Date.now();
        // "never connected" (or "not ZeroMQ") is not so any more: said beside "waiting", it
        // sent the reader to check an engine that had just come up.
        if (this.hintCase !== null) {
          this.hint = `connected to ${cfg.endpoint} (a ZeroMQ handshake made); its first batch has not come yet`;
          this.hintCase = null;
        }
      }
      if (this.peerHungUp) {
        // The hang-up's hint is old news now (collect printed it again beside "waiting").
        this.hint = `${cfg.mode === 'bind' ? 'a publisher connected to' : 'the engine at'} ${cfg.endpoint} is back (a ZeroMQ handshake made); its first batch has not come yet`;
        this.hintCase = null;
      }
      this.peerHungUp = false;
      if (this.state === 'connecting') this.setState('waiting');
    });
    // A bound source learns of a client that connected in: a publisher once it makes a handshake.
    sock.events.on('accept', () => {
      this.peersUp++;
      this.unshakenAccepts++;
    });
    sock.events.on('disconnect', () => {
      if (cfg.mode === 'connect') this.endedAt = Date.now();
      this.onPeerGone();
    });
    // libzmq is trying again: the connection did not end for good.
    sock.events.on('connect:retry', () => {
      this.endedAt = null;
      if (this.seq.lastSeq === null) this.refusedBeforeFirstBatch = true;
    });
    sock.events.on('connect:delay', () => (this.endedAt = null));
    try {
      if (cfg.mode === 'bind') {
        await sock.bind(cfg.endpoint);
        if (this.closed) return;
        this.setState('waiting');
      } else {
        sock.connect(cfg.endpoint);
      }
    } catch (e) {
      const msg = socketErrorText(cfg, e);
      this.releaseSocket();
      this.fail(msg);
      throw new Error(msg);
    }
    const quiet = cfg.replayEndpoint === null ? 1000 : this.probeAfterMs / 4;
    this.tickMs = Math.max(50, Math.min(1000, this.stallMs / 4, quiet));
    this.lastTickAt = Date.now();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
    void this.receiveLoop(sock);
  }

  /** A snapshot of this source's health and counters. */
  status(): SourceHealth {
    const cfg = this.cfg;
    return {
      id: cfg.id,
      profileId: cfg.profileId,
      name: this.name,
      endpoint: cfg.endpoint,
      state: this.state,
      counters: { ...this.counters },
      lastError: this.lastError,
      hint: this.hint,
      fingerprint: this.fingerprint.snapshot(),
      lastMessageAt: this.lastMessageAt,
      subscription: this.subscription,
      clockOffsetS: this.clockOffsetS,
    };
  }

  /**
   * The connection was given another name: shown from now on, the subscription going on (a new
   * socket would lose what the engine publishes meanwhile). A name given is never replaced by a
   * topic's.
   */
  rename(name: string): void {
    this.name = name;
    this.nameFromTopic = false;
    this.notify();
  }

  /** Called on state changes and notable events (gap, reset, error); counters: read status(). */
  onStatus(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * From now on, handles no message more, not even those received and waiting (`capture --max`
   * has its count: what comes after is not counted either). close() still ends the source.
   */
  stopHandling(): void {
    this.handlingStopped = true;
  }

  /** Delivers what a pending gap holds, then releases the socket, timers and replays. */
  async close(): Promise<void> {
    if (this.closed) return;
    // Received is kept: what waits in the burst is handled first.
    this.drainBurst();
    this.seq.giveUp();
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    for (const ac of this.replays) ac.abort();
    this.replays.clear();
    this.releaseSocket();
    this.setState('closed');
    this.listeners.clear();
  }

  private async receiveLoop(sock: Subscriber): Promise<void> {
    try {
      let turn = performance.now();
      let sinceCheck = 0;
      for (;;) {
        const held = this.beforeReceive?.();
        if (held) {
          this.receiveHeld = true;
          await held;
          this.receiveHeld = false;
        }
        const frames = await sock.receive();
        // A receive that had resolved before close() ran resumes after it: the source is done.
        if (this.closed || this.handlingStopped) return;
        this.burst.push(frames);
        if (this.burst.length >= BURST_MAX) this.drainBurst();
        else if (!this.drainSoon) {
          this.drainSoon = true;
          setImmediate(this.drainLater);
        }
        // receive() resolves at once while messages wait, so this loop alone would starve timers
        // and I/O callbacks (the recording's gzip and file writes, the frames): give them a turn.
        // The clock is read every CHECK_EVERY messages, not per message (a call each).
        if (++sinceCheck < CHECK_EVERY) continue;
        sinceCheck = 0;
        if (performance.now() - turn >= YIELD_EVERY_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          turn = performance.now();
        }
      }
    } catch (e) {
      if (this.closed || sock.closed) return;
      this.fail(`receiving from ${this.cfg.endpoint} failed: ${(e as Error).message}`);
    }
  }

  /**
   * Handles the messages received since the last drain, in order. A message that throws ends the
   * source's reading, as the receive loop's own failure does.
   */
  private drainBurst(): void {
    const burst = this.burst;
    if (burst.length === 0) return;
    this.burst = [];
    try {
      for (const frames of burst) {
        if (this.closed || this.handlingStopped) return;
        this.onMessage(frames);
      }
    } catch (e) {
      this.handlingStopped = true;
      if (!this.closed)
        this.fail(`receiving from ${this.cfg.endpoint} failed: ${(e as Error).message}`);
    }
  }

  private onMessage(frames: Buffer[]): void {
    const c = this.counters;
    c.messages++;
    const now = Date.now();
    this.lastMessageAt = now / 1000;
    // Messages still queued after the engine hung up do not make it connected again.
    if (this.state !== 'connected' && !this.peerHungUp) {
      this.hint = null;
      this.hintCase = null;
      this.setState('connected');
      this.recheckReplay();
    } else if (this.replayUnverified) this.recheckReplay();
    const m = parseMessage(frames);
    if (!m.ok) {
      c.bytes += m.bytes;
      c.undecoded++;
      this.sink.record({
        k: 'undecoded',
        rec: { source: this.cfg.id, seq: null, bytes: m.bytes, error: m.error, at: now / 1000 },
      });
      return;
    }
    if (this.nameFromTopic) this.nameByTopic(topicText(m.topicFrame));
    const payload = m.payload;
    c.bytes += payload.byteLength;
    if (this.refusedBeforeFirstBatch) {
      // The engine came up after us: what it published before our subscription reached it is a
      // gap from seq 0 (recovered over replay, else lost), as after a restart.
      this.refusedBeforeFirstBatch = false;
      if (this.cfg.mode === 'connect' && m.seq <= MISSED_START_MAX_SEQ) this.seq.expectStart();
    }
    this.arrivedAtMs = now;
    this.seq.receive(m.seq, payload, payload.byteLength, now);
    this.arrivedAtMs = null;
  }

  /**
   * How far the engine's clock is off ours, in whole seconds (0 within CLOCK_OFFSET_MIN_S), from
   * `off`, a live batch's arrival less its ts: at the first after a start or a restart, when
   * nothing normally queues ahead of it, so the difference is the clocks' and not a backlog's;
   * again at a batch that shows the first was queued. Said to the sink before the batch is
   * recorded, so the charts place it, live and in the file, with its offset.
   */
  private measureClock(off: number, atMs: number): void {
    const seconds = Math.abs(off) < CLOCK_OFFSET_MIN_S ? 0 : Math.round(off);
    const before = this.clockOffsetS ?? 0;
    this.clockOffsetS = seconds;
    this.clockMeasuredAtMs = atMs;
    this.sink.clockOffset?.(this.cfg.id, seconds);
    // The status line's note comes or goes (a new figure shows with the next status read).
    if ((seconds === 0) !== (before === 0)) this.notify();
  }

  /**
   * A live batch whose seq cannot be this stream's (see the sequencer's MAX_SEQ_JUMP): kept as one
   * undecoded record, not applied. Its place in the stream is unknown, so its events could be a
   * duplicate's or another publisher's, and a seq past 2^53 would be recorded inexactly.
   */
  private onBadSeq(seq: bigint, item: Arrival, newest: bigint | null): void {
    this.counters.undecoded++;
    const after = newest === null ? '' : ` (the newest seq was ${newest})`;
    this.sink.record({
      k: 'undecoded',
      rec: {
        source: this.cfg.id,
        seq: null,
        bytes: item.byteLength,
        error: `SeqError: seq ${seq} is out of reach${after}: a garbled frame or another publisher on this endpoint; its batch is not applied`,
        at: Date.now() / 1000,
      },
    });
  }

  /** Once, on the first message: an llm-d topic names a source that was given no name. */
  private nameByTopic(topic: string): void {
    this.nameFromTopic = false;
    const t = llmdTopicSource(topic);
    if (t === null) return;
    this.name = topicSourceName(t);
    this.notify();
  }

  private deliverPayload(seq: bigint, payload: Uint8Array): void {
    const taken = this.takeBatch === undefined ? -1 : this.takeBatch(Number(seq), payload);
    if (taken >= 0) this.counters.events += taken;
    else {
      const origin = this.origin;
      origin.seq = Number(seq);
      this.deliver(origin.seq, decodeBatch(payload, this.decodeOptions, origin));
    }
  }

  private deliver(n: number, d: DecodeResult): void {
    const c = this.counters;
    const source = this.cfg.id;
    if (!d.ok) {
      c.undecoded++;
      if (d.oversized) c.oversized++;
      this.sink.record({
        k: 'undecoded',
        rec: { source, seq: n, bytes: d.bytes, error: d.error, at: Date.now() / 1000 },
      });
      return;
    }
    this.fingerprint.observe(d.shape);
    // The decoder made the records (this source, this seq, the batch's ts and rank). A batch time
    // that is not usable comes as null, its events as event errors: none to apply.
    const records = d.events;
    c.events += records.length;
    if (d.ts !== null) {
      if (this.arrivedAtMs !== null) {
        const off = this.arrivedAtMs / 1000 - d.ts;
        // The first batch; or one that came 2 s sooner than the offset allows, which shows the
        // first waited in a queue (KV Scope paused or busy as the engine started).
        // At most once a second: a ts that runs faster than time would say it at every batch.
        const current = this.clockOffsetS;
        if (
          current === null ||
          (off <= current - CLOCK_OFFSET_MIN_S && this.arrivedAtMs - this.clockMeasuredAtMs >= 1000)
        )
          this.measureClock(off, this.arrivedAtMs);
      }
      this.lastBatchTs = d.ts;
      this.sink.record({
        k: 'batch',
        meta: { source, seq: n, ts: d.ts, dpRank: d.dpRank },
        events: records,
      });
    }
    for (const err of d.errors) {
      c.eventErrors++;
      this.sink.record({
        k: 'event-error',
        rec: { source, seq: n, idx: err.idx, error: err.error },
      });
    }
  }

  private onGap(g: SettledGap<Arrival>): void {
    const c = this.counters;
    c.gaps++;
    c.recovered += g.recovered;
    c.lost += g.lost;
    const revealed = g.revealedBy === null ? null : decodeBatch(g.revealedBy, this.decodeOptions);
    const at = (revealed === null ? null : batchTime(revealed)) ?? Date.now() / 1000;
    this.sink.record({
      k: 'gap',
      rec: {
        source: this.cfg.id,
        from: Number(g.from),
        to: Number(g.to),
        recovered: g.recovered,
        lost: g.lost,
        at,
      },
    });
    this.notify();
  }

  private onReset(previousSeq: bigint, item: DecodeResult): void {
    this.counters.resets++;
    // A new engine process, maybe on another host: its clock is measured again.
    this.clockOffsetS = null;
    const at = batchTime(item) ?? Date.now() / 1000;
    this.sink.record({
      k: 'reset',
      rec: { source: this.cfg.id, previousSeq: Number(previousSeq), at },
    });
    this.notify();
  }

  private replay(id: number, from: bigint): void {
    const endpoint = this.cfg.replayEndpoint;
    if (endpoint === null) return;
    const ac = new AbortController();
    this.replays.add(ac);
    const hangupsAtAsk = this.hangups;
    const messagesAtAsk = this.counters.messages;
    const handlers = {
      batch: (seq: bigint, payload: Uint8Array): boolean =>
        !this.closed && this.seq.replayedBatch(id, seq, payload, Date.now()),
      garbage: (): boolean => !this.closed && this.seq.replayedGarbage(id),
    };
    const ended = (complete: boolean): void => {
      this.replays.delete(ac);
      // A full quiet period from here before a probe's answer is judged: its live copies may
      // still be on the way (see sequencer.ts).
      this.quietMs = 0;
      if (!this.closed) this.seq.replayEnded(id, complete, Date.now());
    };
    streamReplay(endpoint, from, handlers, { idleMs: this.replayIdleMs, signal: ac.signal }).then(
      (outcome) => {
        this.replayAnswered();
        ended(outcome === 'complete');
      },
      (e: unknown) => {
        if (!this.closed) this.replayFailed((e as Error).message, hangupsAtAsk, messagesAtAsk);
        ended(false);
      },
    );
  }

  /**
   * The stream is back while a replay warning shows, or after a replay the silent engine left
   * unanswered: ask the replay endpoint once more (from far ahead, nothing kept), and take the
   * warning back if it answers, or give it if it does not while the stream flows. A stream
   * without gaps asks no replay again: a warning would stay, pointing at a configuration that
   * was right.
   */
  private recheckReplay(): void {
    const endpoint = this.cfg.replayEndpoint;
    const due = this.replayWarning !== null || this.replayUnverified;
    if (endpoint === null || !due || this.rechecking) return;
    this.rechecking = true;
    this.replayUnverified = false;
    const ac = new AbortController();
    this.replays.add(ac);
    const hangupsAtAsk = this.hangups;
    const messagesAtAsk = this.counters.messages;
    const none = (): boolean => false;
    streamReplay(
      endpoint,
      2n ** 62n,
      { batch: none, garbage: none },
      {
        idleMs: this.replayIdleMs,
        signal: ac.signal,
      },
    )
      .then(
        () => this.replayAnswered(),
        (e: unknown) => {
          if (!this.closed) this.replayFailed((e as Error).message, hangupsAtAsk, messagesAtAsk);
        },
      )
      .finally(() => {
        this.replays.delete(ac);
        this.rechecking = false;
      });
  }

  /**
   * Bind: publishers connected at once (llm-d's pods connecting out to one address) send their
   * streams of seqs into one source, where each step from one to the other reads as a restart or
   * a gap. Said once, and it stays: what was counted meanwhile is not one engine's.
   */
  private checkSharedEndpoint(): void {
    const publishers = this.peersUp - this.unshakenAccepts;
    if (publishers < 2 || this.sharedEndpointSaid) return;
    this.sharedEndpointSaid = true;
    this.lastError =
      `${publishers} publishers are connected to ${this.cfg.endpoint} at once: KV Scope reads one ` +
      'stream per source, so their seqs mix here and the restarts, gaps and losses counted are not ' +
      'real; give each engine an endpoint of its own (its own port to connect to)';
    this.notify();
  }

  /**
   * The replay endpoint answered with another stream's batches (a wrong port: another engine's or
   * another rank's). Nothing of the answer was applied, and the gap is lost; said, and it stays.
   */
  private onForeignReplay(seq: bigint): void {
    this.lastError =
      `the replay endpoint ${this.cfg.replayEndpoint} answered with batches that are not this ` +
      `engine's (its batch ${seq} is not the one received live): it belongs to another engine or ` +
      `rank, so nothing it sent was applied and gaps are counted lost; give the replay endpoint of ` +
      `the engine at ${this.cfg.endpoint}`;
    this.replayWarning = null;
    this.notify();
  }

  /** The replay endpoint answered: a warning that it does not is out of date. */
  private replayAnswered(): void {
    const shown = this.replayWarning !== null && this.lastError === this.replayWarning;
    this.replayWarning = null;
    if (!shown || this.closed) return;
    this.lastError = null;
    this.notify();
  }

  /**
   * A replay that failed is a warning, unless the engine was down meanwhile (that explains it) or
   * silent on its live stream too since it was asked: a paused engine (SIGSTOP, a debugger) is
   * no wrong endpoint, so the endpoint is asked again once the stream is back (recheckReplay).
   */
  private replayFailed(message: string, hangupsAtAsk: number, messagesAtAsk: number): void {
    if (this.peerHungUp || this.hangups !== hangupsAtAsk) return;
    if (this.counters.messages === messagesAtAsk) {
      this.replayUnverified = true;
      return;
    }
    this.lastError = message;
    this.replayWarning = message;
  }

  /** The engine closed the connection (stopped, killed or restarting): say so now, not after the stall timeout. */
  private onPeerGone(): void {
    this.peersUp = Math.max(0, this.peersUp - 1);
    const unshaken = this.cfg.mode === 'connect' ? !this.handshaken : this.unshakenAccepts > 0;
    if (unshaken) {
      // Closed before any handshake: not a publisher going away, so no state change to show.
      // (Bind: taken as one of the clients with no handshake, the likelier to leave.)
      if (this.cfg.mode === 'bind') this.unshakenAccepts--;
      if (!this.peerConnected) this.failedHandshakes++;
      return;
    }
    this.handshaken = false;
    if (this.peersUp > 0 || this.closed) return;
    this.hangups++;
    if (this.state === 'connected' || this.state === 'stalled') {
      this.peerHungUp = true;
      this.hintCase = null;
      this.hint =
        this.cfg.mode === 'bind'
          ? `the publisher that connected to ${this.cfg.endpoint} hung up (stopped, killed or restarting); waiting for it to connect again`
          : `the engine at ${this.cfg.endpoint} closed the connection (stopped, killed or restarting); ZeroMQ reconnects by itself`;
      this.setState(this.cfg.mode === 'bind' ? 'waiting' : 'connecting');
    } else if (this.state === 'waiting' && this.cfg.mode === 'connect') {
      this.setState('connecting');
    }
  }

  private tick(): void {
    const now = Date.now();
    const elapsed = now - this.lastTickAt;
    this.lastTickAt = now;
    // A tick far later than its period: this process was suspended (SIGSTOP, sleep) or busy, and
    // what arrived meanwhile is still unread: neither replay progress nor silence can be judged.
    const resumed = elapsed > 3 * this.tickMs;
    this.probeWhenQuiet(now, elapsed, resumed);
    if (resumed) return;
    this.connectAgainIfEnded(now);
    this.seq.tick(now);
    // Nothing received: silent since the handshake (a publisher that came up late is not silent
    // for all the time before it), or since the start.
    const since =
      this.lastMessageAt === null
        ? now - (this.firstHandshakeAt ?? this.startedAt)
        : now - this.lastMessageAt * 1000;
    if (since < this.stallMs || this.state === 'error' || this.state === 'closed') return;
    if (this.peerHungUp) return;
    const received = this.lastMessageAt !== null;
    const silence: Silence = {
      silentSec: since / 1000,
      everReceived: received,
      peerConnected: this.peerConnected,
      // A TCP peer that made no handshake in all this time (it left, or it still waits, as an
      // HTTP server waits for a request line ZeroMQ's greeting never ends) is no publisher.
      notZeroMq: this.failedHandshakes > 0 || this.tcpPeerWithoutHandshake(),
      hostNotFound: this.hostNotFound,
    };
    // One hint per case, its seconds those of when the case began: a hint whose count moved on
    // each tick was said again by every reader that says a changed hint (capture's and collect's
    // stderr printed it once a second); the screen shows the age of the last message beside it.
    const kind = silenceCase(silence);
    const hintChanged = this.hint === null || kind !== this.hintCase;
    if (hintChanged) {
      this.hint = silenceHint(this.cfg, silence);
      this.hintCase = kind;
    }
    if (received && this.state === 'connected') this.setState('stalled');
    else if (hintChanged) this.notify();
  }

  /**
   * Looks the host name of a connect endpoint up beside the connect (libzmq only retries a name it
   * cannot resolve, silently): a silence hint then names the host. Nothing waits on it.
   */
  private lookUpHost(): void {
    const host = this.cfg.mode === 'connect' ? endpointHostName(this.cfg.endpoint) : null;
    if (host === null) return;
    void hostNotFoundCode(host).then((code) => {
      if (code !== null) this.hostNotFound = { host, code };
    });
  }

  /** A TCP connection is up now with no ZeroMQ handshake made on it. */
  private tcpPeerWithoutHandshake(): boolean {
    return this.cfg.mode === 'connect'
      ? this.peersUp > 0 && !this.handshaken
      : this.unshakenAccepts > 0;
  }

  /**
   * With a replay endpoint, silence may hide a loss at the end of a burst: ask once; after the
   * answer, silence settles what it delivered ahead of the live stream.
   */
  private probeWhenQuiet(now: number, elapsed: number, resumed: boolean): void {
    if (this.cfg.replayEndpoint === null) return;
    const messages = this.counters.messages;
    if (messages !== this.messagesAtTick || resumed || this.receiveHeld) {
      this.messagesAtTick = messages;
      this.quietMs = 0;
      return;
    }
    this.quietMs += elapsed;
    if (this.quietMs >= this.probeAfterMs) this.seq.probe(now);
  }

  /** A connection libzmq ended without a retry (see endedAt): connect again, once a second. */
  private connectAgainIfEnded(now: number): void {
    const sock = this.sock;
    if (this.endedAt === null || now - this.endedAt < RECONNECT_ENDED_MS || sock === null) return;
    this.endedAt = null;
    try {
      sock.disconnect(this.cfg.endpoint);
    } catch {
      // libzmq forgot the endpoint with its connection: connecting again is all there is to do.
    }
    sock.connect(this.cfg.endpoint);
  }

  private fail(message: string): void {
    this.lastError = message;
    this.setState('error');
  }

  private releaseSocket(): void {
    const sock = this.sock;
    this.sock = null;
    if (sock === null || sock.closed) return;
    // Closing the socket ends its observer too; closing the observer first (or after) makes
    // zeromq report ENOTSOCK as an unhandled rejection.
    sock.close();
  }

  private setState(s: SourceState): void {
    if (this.state === s) return;
    this.state = s;
    this.notify();
  }

  private notify(): void {
    if (this.listeners.size === 0) return;
    const s = this.status();
    for (const l of this.listeners) l(s);
  }
}
