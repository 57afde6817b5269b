// Coalesces state changes into at most one snapshot frame per tick, and sends a subscriber the next
// frame only after it acknowledged the previous one: a slow, hidden or absent renderer is skipped,
// never queued for. Frames are whole snapshots, so a skipped one loses nothing.

import type { UpdateFrame } from '../../shared/api-types';

export interface FrameSink {
  send(frame: UpdateFrame): void;
  /** False while the transport still holds earlier bytes (e.g. a WebSocket's send buffer). */
  writable?(): boolean;
}

export interface FrameSubscription {
  /** The renderer has frame `n` (`now` for tests: the clock tick() is given). */
  ack(n: number, now?: number): void;
  close(): void;
}

interface Subscriber {
  sink: FrameSink;
  /** Frame sent and not yet acknowledged. */
  inFlight: number | null;
  sentAt: number;
  lastSent: number;
  /** A tick found it still waiting for its ack: the ack, when it comes, sends at once. */
  missed: boolean;
}

export interface FramePumpOptions {
  intervalMs?: number;
  /** A frame not acknowledged by then is taken as lost (a renderer that reloaded, say). */
  ackTimeoutMs?: number;
}

/** Builds frames on a timer while something changed, and hands them to subscribers that are ready. */
export class FramePump {
  private readonly subscribers = new Set<Subscriber>();
  private timer: NodeJS.Timeout | null = null;
  private readonly ackTimeoutMs: number;
  private readonly intervalMs: number;
  /** When the next tick is due, on a fixed grid: a late tick does not push later ones back. */
  private due = 0;
  private dirty = true;
  private latest: UpdateFrame | null = null;
  private counter = 0;

  constructor(
    private readonly build: (n: number) => UpdateFrame,
    options: FramePumpOptions = {},
  ) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 3000;
    this.intervalMs = options.intervalMs ?? 100;
    this.due = performance.now();
    this.schedule();
  }

  // setInterval reschedules from when a late callback ran, so on a busy event loop every tick's
  // lateness adds up (8 frames a second instead of 10); ticks due on a fixed grid do not drift.
  private schedule(): void {
    const now = performance.now();
    this.due += this.intervalMs;
    // More than a whole interval behind: start the grid again from now rather than burst.
    if (this.due < now) this.due = now + this.intervalMs;
    this.timer = setTimeout(() => {
      this.tick();
      if (this.timer) this.schedule();
    }, this.due - now);
    this.timer.unref();
  }

  /** Something the frame shows has changed. */
  markDirty(): void {
    this.dirty = true;
  }

  subscribe(sink: FrameSink): FrameSubscription {
    const sub: Subscriber = { sink, inFlight: null, sentAt: 0, lastSent: -1, missed: false };
    this.subscribers.add(sub);
    this.dirty = true;
    return {
      ack: (n, now = Date.now()) => {
        if (sub.inFlight !== n) return;
        sub.inFlight = null;
        // An ack that comes after its tick (a busy machine, a slow link) would otherwise wait for
        // the next one: at a round trip just over the interval, that halves the frame rate.
        if (sub.missed && now - sub.sentAt >= this.intervalMs) this.sendTo([sub], now);
      },
      close: () => this.subscribers.delete(sub),
    };
  }

  /** Builds (if needed) and sends; exposed so tests and shutdown can drive it. */
  tick(now = Date.now()): void {
    const ready: Subscriber[] = [];
    for (const sub of this.subscribers) {
      const waiting = sub.inFlight !== null && now - sub.sentAt < this.ackTimeoutMs;
      sub.missed = waiting;
      if (!waiting && sub.sink.writable?.() !== false) ready.push(sub);
    }
    this.sendTo(ready, now);
  }

  private sendTo(ready: Subscriber[], now: number): void {
    // Nobody can take a frame: build nothing, so no work piles up for an absent renderer.
    if (ready.length === 0) return;
    if (this.dirty || !this.latest) {
      this.latest = this.build(++this.counter);
      this.dirty = false;
    }
    const frame = this.latest;
    for (const sub of ready) {
      sub.missed = false;
      if (sub.lastSent === frame.n) continue;
      sub.inFlight = frame.n;
      sub.sentAt = now;
      sub.lastSent = frame.n;
      sub.sink.send(frame);
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.subscribers.clear();
  }
}
