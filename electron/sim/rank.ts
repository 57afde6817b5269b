// One data-parallel rank's sockets: a PUB socket (bound or connected out), the bounded replay
// buffer, and the ROUTER replay endpoint that speaks vLLM's protocol.
import { createServer } from 'node:net';
import { Publisher, Router } from 'zeromq';

/** Replay end marker: seq = -1 as eight 0xFF bytes. */
export const END_SEQ = Buffer.alloc(8, 0xff);

export interface RankSocketOptions {
  rank: number;
  topic: string;
  host: string;
  /** 0 = ephemeral. */
  port: number;
  connectTo: string | null;
  /** null = no replay; 0 = ephemeral. */
  replayPort: number | null;
  /** Batches kept for replay; Infinity keeps every one. */
  replayBuffer: number;
  replayTopicFrame: boolean;
  /** The PUB socket's send high-water mark (default 100,000): past it, a slow subscriber's messages are dropped. */
  pubHighWaterMark?: number;
}

/** One replay request as the ROUTER saw it, and what its buffer held at that moment. */
export interface ReplayRequestLog {
  start: bigint;
  /** Oldest and newest seq buffered when the request came (null: empty buffer). */
  oldest: bigint | null;
  newest: bigint | null;
  /** Batches the answer carried (seq >= start). */
  answered: number;
}

/** Big-endian u64 frame. */
export function seqFrame(seq: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(seq);
  return b;
}

/** What a replay slot before the head holds once its batch left the buffer. */
const RELEASED = { seq: -1n, payload: new Uint8Array(0) };

/** The sockets and replay buffer of one rank. */
export class RankSockets {
  pubEndpoint = '';
  replayEndpoint: string | null = null;
  private readonly pub: Publisher;
  private router: Router | null = null;
  private readonly topic: Buffer;
  /** [seq, payload], oldest first from `head` (a head index: no O(n) shift per message). */
  private buffer: { seq: bigint; payload: Uint8Array }[] = [];
  private head = 0;
  private readonly requests: ReplayRequestLog[] = [];
  private sendChain: Promise<void> = Promise.resolve();
  /**
   * Messages ZeroMQ took (its send resolved): queued in the PUB socket, not known to be delivered.
   * A PUB drops what a subscriber more than its high-water mark behind cannot take, and says
   * nothing: only the subscriber's gaps show it.
   */
  handed = 0;
  private closed = false;
  private replayLoop: Promise<void> = Promise.resolve();

  private constructor(private readonly opts: RankSocketOptions) {
    this.topic = Buffer.from(opts.topic, 'utf8');
    this.pub = new Publisher({ linger: 0, sendHighWaterMark: opts.pubHighWaterMark ?? 100_000 });
  }

  /** Bind (or connect) the rank's sockets. */
  static async open(opts: RankSocketOptions): Promise<RankSockets> {
    const r = new RankSockets(opts);
    try {
      await r.setup();
    } catch (err) {
      // Release what did open; the setup error is the one worth reporting.
      await r.close().catch(() => undefined);
      throw err;
    }
    return r;
  }

  private async setup(): Promise<void> {
    const { host, port, rank, connectTo, replayPort } = this.opts;
    if (connectTo !== null) {
      this.pubEndpoint = offsetPort(connectTo, rank);
      this.pub.connect(this.pubEndpoint);
    } else {
      await this.pub.bind(endpoint(host, port === 0 ? 0 : port + rank)).catch((err: unknown) => {
        throw bindError('PUB', endpoint(host, port + rank), err);
      });
      this.pubEndpoint = this.pub.lastEndpoint ?? endpoint(host, port + rank);
    }
    if (replayPort !== null) {
      // No send high-water mark: a ROUTER drops what does not fit, which would tear answers.
      this.router = new Router({ linger: 0, sendHighWaterMark: 0 });
      const want = endpoint(host, replayPort === 0 ? 0 : replayPort + rank);
      await this.router.bind(want).catch((err: unknown) => {
        throw bindError('replay ROUTER', want, err);
      });
      this.replayEndpoint = this.router.lastEndpoint ?? want;
      this.replayLoop = this.serveReplay(this.router);
    }
  }

  /** Buffer a message for replay and (unless dropped) send it on PUB, in seq order. */
  send(seq: bigint, payload: Uint8Array, onPub: boolean): Promise<void> {
    this.buffer.push({ seq, payload });
    if (this.buffer.length - this.head > this.opts.replayBuffer) {
      // Let go of the oldest payload now: the slots before `head` wait for the next compaction
      // (up to 4096 per rank), and holding their payloads there tripled the buffer's bytes.
      this.buffer[this.head] = RELEASED;
      this.head++;
      if (this.head >= 4096 && this.head * 2 >= this.buffer.length) {
        this.buffer = this.buffer.slice(this.head);
        this.head = 0;
      }
    }
    if (!onPub) return this.sendChain;
    const frames = [this.topic, seqFrame(seq), payload];
    this.sendChain = this.sendChain.then(async () => {
      if (this.closed) return;
      await this.pub.send(frames).then(
        () => {
          this.handed += 1;
        },
        (err: unknown) => {
          // Keep the chain alive: one failed send must not stop the stream.
          if (!this.closed) process.stderr.write(`kvscope sim: PUB send failed: ${String(err)}\n`);
        },
      );
    });
    return this.sendChain;
  }

  /** A restarted publisher has an empty replay buffer. */
  resetBuffer(): void {
    this.buffer = [];
    this.head = 0;
  }

  /** Seqs currently held for replay (oldest first). */
  bufferedSeqs(): bigint[] {
    return this.held().map((b) => b.seq);
  }

  /** Every replay request served so far, oldest first (a copy). */
  replayRequests(): ReplayRequestLog[] {
    return this.requests.map((r) => ({ ...r }));
  }

  private held(): { seq: bigint; payload: Uint8Array }[] {
    return this.head === 0 ? this.buffer : this.buffer.slice(this.head);
  }

  private async serveReplay(router: Router): Promise<void> {
    try {
      for await (const msg of router) {
        // [identity, "", start_seq]: anything else is ignored, as vLLM does.
        if (msg.length !== 3) continue;
        const [id, , start] = msg;
        if (!id || !start || start.length === 0 || start.length > 8) continue;
        const startSeq = BigInt('0x' + Buffer.from(start).toString('hex'));
        const held = this.held();
        const items = held.filter((b) => b.seq >= startSeq);
        this.requests.push({
          start: startSeq,
          oldest: held[0]?.seq ?? null,
          newest: held.at(-1)?.seq ?? null,
          answered: items.length,
        });
        for (const b of items) {
          const head = this.opts.replayTopicFrame ? [this.topic] : [];
          await router.send([id, '', ...head, seqFrame(b.seq), b.payload]);
        }
        await router.send([
          id,
          '',
          ...(this.opts.replayTopicFrame ? [this.topic] : []),
          END_SEQ,
          '',
        ]);
      }
    } catch (err) {
      if (!this.closed) process.stderr.write(`kvscope sim: replay stopped: ${String(err)}\n`);
    }
  }

  /**
   * Close both sockets (libzmq frees the ports in the background, moments later). Messages built
   * and not yet handed to ZeroMQ are dropped, and so are those queued in it (linger 0), unless
   * `lingerMs`: then every built message is handed first, and ZeroMQ has that long to deliver
   * them (a stopped simulator's counts are then what a subscriber that keeps up receives).
   */
  async close(lingerMs = 0): Promise<void> {
    if (this.closed) return this.replayLoop;
    if (lingerMs > 0) {
      await this.sendChain;
      this.pub.linger = lingerMs;
    }
    this.closed = true;
    await this.sendChain;
    // No unbind first: libzmq 4.3.5 can assert (pipe.cpp) when unbinding with live peers.
    this.pub.close();
    this.router?.close();
    await this.replayLoop;
    // Resolve only once the listening ports are really free, so a restart can bind them again.
    const bound = [this.opts.connectTo === null ? this.pubEndpoint : null, this.replayEndpoint];
    await Promise.all(bound.map((ep) => (ep ? waitPortFree(ep) : undefined)));
  }
}

/** Poll (bounded) until a TCP port can be listened on again. */
async function waitPortFree(ep: string, ms = 2000): Promise<void> {
  const m = /^tcp:\/\/(.+):(\d+)$/.exec(ep);
  if (!m) return;
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  const port = Number(m[2]);
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen({ host: host === '*' ? '0.0.0.0' : host, port, exclusive: true }, () =>
        srv.close(() => resolve(true)),
      );
    });
    if (free) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

function endpoint(host: string, port: number): string {
  return `tcp://${host}:${port === 0 ? '*' : port}`;
}

/** vLLM's offset_endpoint_port: rank r uses the base port + r. */
export function offsetPort(url: string, rank: number): string {
  if (rank === 0) return url;
  const m = /^(tcp:\/\/.*):(\d+)$/.exec(url);
  if (!m) throw new Error(`cannot offset the port of ${url} for rank ${rank}: use tcp://host:port`);
  return `${m[1]}:${Number(m[2]) + rank}`;
}

function bindError(what: string, where: string, err: unknown): Error {
  const why = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string } | null)?.code;
  // ZeroMQ says ENODEV for a host that is neither an address nor an interface (999.1.1.1).
  const advice =
    code === 'EADDRNOTAVAIL' || code === 'ENODEV'
      ? 'that host is not an address of this machine: pass --host 127.0.0.1, 0.0.0.0 or a local address.'
      : code === 'EADDRINUSE'
        ? 'the port is in use: try another port or 0.'
        : 'is the port in use? Try another port or 0.';
  return new Error(`cannot bind the ${what} socket on ${where} (${why}): ${advice}`);
}
