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
  ack(n: number): void;
  close(): void;
}

interface Subscriber {
  sink: FrameSink;
  /** Frame sent and not yet acknowledged. */
  inFlight: number | null;
  sentAt: number;
  lastSent: number;
}

export interface FramePumpOptions {
  intervalMs?: number;
  /** A frame not acknowledged by then is taken as lost (a renderer that reloaded, say). */
  ackTimeoutMs?: number;
}

/** Builds frames on a timer while something changed, and hands them to subscribers that are ready. */
export class FramePump {
  private readonly subscribers = new Set<Subscriber>();
  private readonly timer: NodeJS.Timeout;
  private readonly ackTimeoutMs: number;
  private dirty = true;
  private latest: UpdateFrame | null = null;
  private counter = 0;

  constructor(
    private readonly build: (n: number) => UpdateFrame,
    options: FramePumpOptions = {},
  ) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 3000;
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 100);
    this.timer.unref();
  }

  /** Something the frame shows has changed. */
  markDirty(): void {
    this.dirty = true;
  }

  subscribe(sink: FrameSink): FrameSubscription {
    const sub: Subscriber = { sink, inFlight: null, sentAt: 0, lastSent: -1 };
    this.subscribers.add(sub);
    this.dirty = true;
    return {
      ack: (n) => {
        if (sub.inFlight === n) sub.inFlight = null;
      },
      close: () => this.subscribers.delete(sub),
    };
  }

  /** Builds (if needed) and sends; exposed so tests and shutdown can drive it. */
  tick(now = Date.now()): void {
    const ready = [...this.subscribers].filter(
      (sub) =>
        (sub.inFlight === null || now - sub.sentAt >= this.ackTimeoutMs) &&
        sub.sink.writable?.() !== false,
    );
    // Nobody can take a frame: build nothing, so no work piles up for an absent renderer.
    if (ready.length === 0) return;
    if (this.dirty || !this.latest) {
      this.latest = this.build(++this.counter);
      this.dirty = false;
    }
    const frame = this.latest;
    for (const sub of ready) {
      if (sub.lastSent === frame.n) continue;
      sub.inFlight = frame.n;
      sub.sentAt = now;
      sub.lastSent = frame.n;
      sub.sink.send(frame);
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.subscribers.clear();
  }
}
