// One replay exchange with an engine's ROUTER: DEALER sends ["", start_seq u64 BE] and reads
// ["", seq, payload] (newer engines: ["", topic, seq, payload]) until seq = -1 with an empty
// payload. DEALER, not REQ: REQ would accept only the first reply. Frames are handed over as
// they arrive; the exchange ends on no frame for `idleMs` (an idle timeout, never a total one:
// a 10,000-batch answer takes as long as it takes).
import { Dealer } from 'zeromq';
import { REPLAY_END_SEQ, encodeSeq, readSeq } from '../wire/message';

/** One batch the engine still had. */
export interface ReplayBatch {
  seq: bigint;
  payload: Uint8Array;
}

/** Where the frames of an answer go, as they arrive. */
export interface ReplayHandlers {
  /** One batch of the answer; return false to stop reading (nothing more is needed). */
  batch(seq: bigint, payload: Uint8Array): boolean;
  /** A frame with no readable seq; return false to stop reading. */
  garbage(): boolean;
}

export interface ReplayOptions {
  /** No frame for this long ends the exchange (default 3000 ms). */
  idleMs?: number;
  /**
   * Frames the socket may queue before we read them (default 100,000). The engine's ROUTER
   * drops what does not fit, so this must hold a whole answer: vLLM buffers 10,000 batches.
   */
  queueFrames?: number;
  /** Closing the source aborts the exchange and releases the socket. */
  signal?: AbortSignal;
}

/** How an exchange ended: the end marker came, or the handlers needed no more frames. */
export type ReplayOutcome = 'complete' | 'stopped';

/** Thrown when the engine sends nothing for the idle time (the batches read so far are kept). */
export class ReplayTimeoutError extends Error {
  constructor(
    message: string,
    public partial: ReplayBatch[] = [],
  ) {
    super(message);
    this.name = 'ReplayTimeoutError';
  }
}

const EMPTY = new Uint8Array(0);

/** Asks `endpoint` for every buffered batch with seq >= fromSeq, handing each frame over as it arrives. */
export async function streamReplay(
  endpoint: string,
  fromSeq: bigint,
  handlers: ReplayHandlers,
  opts: ReplayOptions = {},
): Promise<ReplayOutcome> {
  const idleMs = opts.idleMs ?? 3000;
  const sock = new Dealer({ linger: 0, receiveHighWaterMark: opts.queueFrames ?? 100_000 });
  const onAbort = (): void => sock.close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (aborted(opts)) throw abortError();
    sock.connect(endpoint);
    sock.sendTimeout = idleMs;
    sock.receiveTimeout = idleMs;
    await sock.send([EMPTY, encodeSeq(fromSeq)]);
    for (;;) {
      const asked = Date.now();
      let frames: Buffer[];
      try {
        frames = await sock.receive();
      } catch (e) {
        if (aborted(opts)) throw abortError();
        if ((e as { code?: string }).code !== 'EAGAIN') throw e;
        // Far longer than the timeout: this process was suspended (SIGSTOP, sleep) and the
        // answer may be waiting unread. Look once more before calling the engine idle.
        if (Date.now() - asked > 2 * idleMs) continue;
        throw new ReplayTimeoutError(idleText(endpoint, idleMs));
      }
      // Skip the empty delimiter; tolerate a topic frame before the seq.
      let i = frames.length > 0 && frames[0]?.length === 0 ? 1 : 0;
      if (frames.length - i === 3) i++;
      const seqFrame = frames[i];
      const seq = seqFrame === undefined ? null : readSeq(seqFrame);
      if (seq === REPLAY_END_SEQ) return 'complete';
      const more = seq === null ? handlers.garbage() : handlers.batch(seq, frames[i + 1] ?? EMPTY);
      if (!more) return 'stopped';
    }
  } catch (e) {
    // Closing the socket under a pending send/receive surfaces as ENOTSOCK: say what happened.
    if (aborted(opts)) throw abortError();
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    if (!sock.closed) sock.close();
  }
}

/** Asks `endpoint` for every buffered batch with seq >= fromSeq; resolves with them in arrival order. */
export async function requestReplay(
  endpoint: string,
  fromSeq: bigint,
  opts: ReplayOptions & { maxBatches?: number } = {},
): Promise<ReplayBatch[]> {
  const maxBatches = opts.maxBatches ?? 100_000;
  const out: ReplayBatch[] = [];
  const handlers: ReplayHandlers = {
    batch(seq, payload) {
      out.push({ seq, payload });
      return out.length < maxBatches;
    },
    garbage: () => true,
  };
  try {
    await streamReplay(endpoint, fromSeq, handlers, opts);
    return out;
  } catch (e) {
    if (e instanceof ReplayTimeoutError) e.partial = out;
    throw e;
  }
}

function idleText(endpoint: string, ms: number): string {
  return `replay from ${endpoint} sent nothing for ${ms} ms: is replay_endpoint set on the engine, and is this its port (rank r: base + r)?`;
}

const abortError = (): Error => new Error('replay aborted: the source closed');

const aborted = (opts: ReplayOptions): boolean => opts.signal?.aborted === true;
