// Reads an engine's own /metrics every few seconds, each read bounded in time and size. A down,
// slow or wrong URL becomes a plain message for that source and the last good figures stay (as
// stale); nothing waits on it, and one read never overlaps the next.

import {
  NotVllmMetricsError,
  readEngineFigures,
  type EngineFiguresByEngine,
} from './engine-figures';
import { hostNotFoundText, isHostNotFound } from '../ingest/host-lookup';
import { PromTextError } from './prom-text';

export const DEFAULT_ENGINE_POLL_MS = 5000;
export const DEFAULT_ENGINE_TIMEOUT_MS = 2000;
/** A vLLM /metrics answer is some hundred kB; past this it is not one. */
export const MAX_ENGINE_METRICS_BYTES = 8 * 1024 * 1024;

/** The state of one engine's metrics URL. */
export interface EngineReading {
  /** The URL as shown (without any user:password part). */
  url: string;
  /** True when the latest read succeeded. */
  ok: boolean;
  /** Why the latest read failed, said so that the user knows what to check; null when ok. */
  message: string | null;
  /** Wall clock (ms) of the latest good read and of the latest attempt. */
  readAt: number | null;
  checkedAt: number | null;
  /** Figures of the latest good read, per engine label; null before the first. */
  engines: EngineFiguresByEngine | null;
}

export interface EnginePollerOptions {
  url: string;
  intervalMs?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Called after every read, good or bad. */
  onRead?: (reading: EngineReading) => void;
}

/** Polls one engine's Prometheus endpoint until closed. */
export class EnginePoller {
  private state: EngineReading;
  private timer: NodeJS.Timeout | null = null;
  private readonly stop = new AbortController();
  private inFlight: Promise<EngineReading> | null = null;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(private readonly opts: EnginePollerOptions) {
    this.intervalMs = opts.intervalMs ?? DEFAULT_ENGINE_POLL_MS;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? MAX_ENGINE_METRICS_BYTES;
    this.state = {
      url: shownUrl(opts.url),
      ok: false,
      message: null,
      readAt: null,
      checkedAt: null,
      engines: null,
    };
  }

  /** Reads now and then every interval. */
  start(): void {
    if (this.timer !== null || this.stop.signal.aborted) return;
    const loop = () => {
      void this.poll().finally(() => {
        if (this.stop.signal.aborted) return;
        this.timer = setTimeout(loop, this.intervalMs);
        this.timer.unref();
      });
    };
    loop();
  }

  /** The latest reading. */
  reading(): EngineReading {
    return this.state;
  }

  /** One read (or the one under way); resolves with the reading it left, never rejects. */
  poll(): Promise<EngineReading> {
    this.inFlight ??= this.read().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  close(): void {
    this.stop.abort();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async read(): Promise<EngineReading> {
    const checkedAt = Date.now();
    try {
      const text = await this.fetchText();
      const engines = readEngineFigures(text);
      this.state = {
        ...this.state,
        ok: true,
        message: null,
        readAt: checkedAt,
        checkedAt,
        engines,
      };
    } catch (err) {
      if (this.stop.signal.aborted) return this.state;
      this.state = { ...this.state, ok: false, message: this.explain(err), checkedAt };
    }
    this.opts.onRead?.(this.state);
    return this.state;
  }

  private async fetchText(): Promise<string> {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]);
    const res = await fetch(this.opts.url, {
      signal,
      headers: { Accept: 'text/plain;version=0.0.4' },
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new HttpStatusError(res.status);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > this.maxBytes) {
      await res.body?.cancel();
      throw new TooLargeError();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).byteLength;
      if (size > this.maxBytes) throw new TooLargeError();
      chunks.push(chunk as Uint8Array);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private explain(err: unknown): string {
    const at = `engine metrics ${this.state.url}`;
    if (err instanceof HttpStatusError) {
      return `${at} answered HTTP ${err.status}: vLLM serves its metrics at http://HOST:8000/metrics (its API server's port)`;
    }
    if (err instanceof TooLargeError) {
      return `${at} sent more than ${Math.round(this.maxBytes / 1024 / 1024)} MiB: this is not an engine's /metrics`;
    }
    if (err instanceof PromTextError || err instanceof NotVllmMetricsError) {
      return `${at}: ${err.message}`;
    }
    if (err instanceof Error && err.name === 'TimeoutError') {
      return `${at} did not answer within ${this.timeoutMs / 1000} s: is the address right and the engine up?`;
    }
    const code = errorCode(err);
    if (code === 'ECONNREFUSED') {
      return `${at}: connection refused: is the engine's API server running, on that port?`;
    }
    if (isHostNotFound(code)) {
      return `${at}: ${hostNotFoundText(new URL(this.state.url).hostname, code)}`;
    }
    const why = code ?? rootMessage(err);
    return `${at} could not be read (${why}): check the URL`;
  }
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

class TooLargeError extends Error {}

/** The system error code behind a failed fetch (undici puts it on `cause`). */
function errorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The innermost message of a failed fetch ("fetch failed" says nothing; its cause does). */
function rootMessage(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++) {
    message = e.message;
    e = (e as { cause?: unknown }).cause;
  }
  return message;
}

/** The URL without a user:password part, for messages. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}
