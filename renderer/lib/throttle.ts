// Throttles an async task: at most one run per interval, never two at once, and a trigger that
// arrives while throttled or running is not lost (one trailing run follows). A user's question
// (a new sort, rows scrolled to) is urgent: it skips the interval, never the run in progress.

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface Throttle {
  /**
   * Asks for a run: now if allowed, else once the interval has passed or the current run ends;
   * urgent, as soon as no run is in progress.
   */
  trigger(urgent?: boolean): void;
  /** Drops any scheduled run; a run in progress finishes but triggers nothing more. */
  cancel(): void;
}

/** Creates a throttle around `task` with at least `intervalMs` between the starts of two runs. */
export function createThrottle(
  task: () => Promise<unknown> | void,
  intervalMs: number,
  clock: Clock = realClock,
): Throttle {
  let lastStart = -Infinity;
  let running = false;
  let pending = false;
  let urgentPending = false;
  let timer: unknown = null;
  let cancelled = false;

  const run = (): void => {
    timer = null;
    if (cancelled) return;
    pending = false;
    urgentPending = false;
    running = true;
    lastStart = clock.now();
    let result: Promise<unknown> | void;
    try {
      result = task();
    } catch {
      result = undefined;
    }
    void Promise.resolve(result)
      .catch(() => undefined)
      .then(() => {
        running = false;
        if (pending && !cancelled) schedule();
      });
  };

  const schedule = (): void => {
    if (urgentPending && timer != null) {
      clock.clearTimeout(timer);
      timer = null;
    }
    if (timer != null) return;
    const wait = urgentPending ? 0 : Math.max(0, lastStart + intervalMs - clock.now());
    if (wait === 0) run();
    else timer = clock.setTimeout(run, wait);
  };

  return {
    trigger(urgent = false) {
      if (cancelled) return;
      pending = true;
      if (urgent) urgentPending = true;
      if (!running) schedule();
    },
    cancel() {
      cancelled = true;
      pending = false;
      urgentPending = false;
      if (timer != null) clock.clearTimeout(timer);
      timer = null;
    },
  };
}
