// One replay exchange with an engine's ROUTER: DEALER sends ["", start_seq u64 BE] and reads
// ["", seq, payload] (newer engines: ["", topic, seq, payload]) until seq = -1 with an empty
// payload. DEALER, not REQ: REQ would accept only the first reply.
import { Dealer } from 'zeromq';
import { REPLAY_END_SEQ, encodeSeq, readSeq } from '../wire/message';

/** One batch the engine still had. */
export interface ReplayBatch {
  seq: bigint;
  payload: Uint8Array;
}

export interface ReplayOptions {
  /** Whole exchange, from connect to the end marker (default 3000 ms). */
  timeoutMs?: number;
  /** Stop reading after this many batches (the engine's buffer is bounded anyway). */
  maxBatches?: number;
  /** Closing the source aborts the exchange and releases the socket. */
  signal?: AbortSignal;
}

/** Thrown when the engine does not finish its answer in time (the batches read so far are kept). */
export class ReplayTimeoutError extends Error {
  constructor(
    message: string,
    readonly partial: ReplayBatch[],
  ) {
    super(message);
    this.name = 'ReplayTimeoutError';
  }
}

const EMPTY = new Uint8Array(0);

/** Asks `endpoint` for every buffered batch with seq >= fromSeq; resolves with them in arrival order. */
export async function requestReplay(
  endpoint: string,
  fromSeq: bigint,
  opts: ReplayOptions = {},
): Promise<ReplayBatch[]> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const maxBatches = opts.maxBatches ?? 100_000;
  const sock = new Dealer({ linger: 0 });
  const out: ReplayBatch[] = [];
  const onAbort = (): void => sock.close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (aborted(opts)) throw new Error('replay aborted: the source closed');
    sock.connect(endpoint);
    const deadline = Date.now() + timeoutMs;
    sock.sendTimeout = timeoutMs;
    await sock.send([EMPTY, encodeSeq(fromSeq)]);
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new ReplayTimeoutError(timeoutText(endpoint, timeoutMs), out);
      sock.receiveTimeout = left;
      let frames: Buffer[];
      try {
        frames = await sock.receive();
      } catch (e) {
        if (aborted(opts)) throw new Error('replay aborted: the source closed');
        if ((e as { code?: string }).code === 'EAGAIN') {
          throw new ReplayTimeoutError(timeoutText(endpoint, timeoutMs), out);
        }
        throw e;
      }
      // Skip the empty delimiter; tolerate a topic frame before the seq.
      let i = frames.length > 0 && frames[0]?.length === 0 ? 1 : 0;
      if (frames.length - i === 3) i++;
      const seqFrame = frames[i];
      const payload = frames[i + 1] ?? EMPTY;
      const seq = seqFrame === undefined ? null : readSeq(seqFrame);
      if (seq === null) continue; // not a replay frame: ignore it rather than fail the exchange
      if (seq === REPLAY_END_SEQ) return out;
      out.push({ seq, payload });
      if (out.length >= maxBatches) return out;
    }
  } catch (e) {
    // Closing the socket under a pending send/receive surfaces as ENOTSOCK: say what happened.
    if (aborted(opts)) throw new Error('replay aborted: the source closed');
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    if (!sock.closed) sock.close();
  }
}

function timeoutText(endpoint: string, ms: number): string {
  return `replay from ${endpoint} did not finish within ${ms} ms: is replay_endpoint set on the engine, and is this its port (rank r: base + r)?`;
}

const aborted = (opts: ReplayOptions): boolean => opts.signal?.aborted === true;
