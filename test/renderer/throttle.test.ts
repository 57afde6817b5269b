import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottle } from '../../renderer/lib/throttle';

describe('throttle', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at once, then at most once per interval with one trailing run', async () => {
    let runs = 0;
    const t = createThrottle(() => {
      runs++;
    }, 500);
    t.trigger();
    expect(runs).toBe(1);
    t.trigger();
    t.trigger();
    t.trigger();
    await vi.advanceTimersByTimeAsync(499);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(runs).toBe(2);
    t.cancel();
  });

  it('runs an urgent trigger without waiting for the interval, but never beside a run', async () => {
    let runs = 0;
    let release: (() => void) | null = null;
    const t = createThrottle(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          release = resolve;
        }),
      1000,
    );
    t.trigger();
    expect(runs).toBe(1);
    (release as (() => void) | null)?.();
    await vi.advanceTimersByTimeAsync(10);
    // A tick waits for the interval; a question asked meanwhile does not.
    t.trigger();
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    t.trigger(true);
    expect(runs).toBe(2);
    // Urgent while a run is in progress: right after it, not beside it.
    t.trigger(true);
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(2);
    (release as (() => void) | null)?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(3);
    (release as (() => void) | null)?.();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(3);
    t.cancel();
  });

  it('never starts a run while one is still in progress, and does not lose a trigger', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const releases: (() => void)[] = [];
    const t = createThrottle(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          active++;
          maxActive = Math.max(maxActive, active);
          releases.push(() => {
            active--;
            resolve();
          });
        }),
      100,
    );
    t.trigger();
    await vi.advanceTimersByTimeAsync(1000);
    t.trigger();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
    releases.shift()?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(2);
    releases.shift()?.();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
    t.cancel();
  });

  it('keeps going after a failing run', async () => {
    let runs = 0;
    const t = createThrottle(() => {
      runs++;
      return Promise.reject(new Error('boom'));
    }, 100);
    t.trigger();
    await vi.advanceTimersByTimeAsync(0);
    t.trigger();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    t.cancel();
  });

  it('does nothing after cancel', async () => {
    let runs = 0;
    const t = createThrottle(() => {
      runs++;
    }, 100);
    t.trigger();
    t.trigger();
    t.cancel();
    await vi.advanceTimersByTimeAsync(500);
    t.trigger();
    expect(runs).toBe(1);
  });
});
