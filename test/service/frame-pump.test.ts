import { afterEach, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { FramePump } from '../../electron/service/frame-pump';
import { updateFrame } from '../support/update-frame';

function frame(n: number): UpdateFrame {
  return updateFrame(n, {}, { storedBlocks: n });
}

describe('FramePump', () => {
  let pump: FramePump;
  afterEach(() => pump.close());

  it('coalesces any number of changes between ticks into one frame', () => {
    let built = 0;
    pump = new FramePump(
      (n) => {
        built++;
        return frame(n);
      },
      { intervalMs: 1e6 },
    );
    const sent: number[] = [];
    const sub = pump.subscribe({ send: (f) => sent.push(f.n) });
    for (let i = 0; i < 10_000; i++) pump.markDirty();
    pump.tick(0);
    expect(sent).toEqual([1]);
    expect(built).toBe(1);
    sub.ack(1);
    pump.tick(10);
    expect(sent).toEqual([1]); // nothing changed: nothing sent
  });

  it('sends the next frame only after the renderer acknowledged the previous one', () => {
    pump = new FramePump(frame, { intervalMs: 1e6, ackTimeoutMs: 5000 });
    const sent: number[] = [];
    const sub = pump.subscribe({ send: (f) => sent.push(f.n) });
    pump.tick(0);
    for (let t = 1; t < 50; t++) {
      pump.markDirty();
      pump.tick(t * 100);
    }
    expect(sent).toEqual([1]); // a renderer that never acks gets nothing queued
    sub.ack(1);
    pump.markDirty();
    pump.tick(5000);
    expect(sent).toEqual([1, 2]); // one frame of the latest state, not the backlog
  });

  it('sends the frame a late ack made it miss at once, not a tick later', () => {
    pump = new FramePump(frame, { intervalMs: 100, ackTimeoutMs: 5000 });
    const sent: number[] = [];
    const sub = pump.subscribe({ send: (f) => sent.push(f.n) });
    pump.tick(0);
    pump.markDirty();
    pump.tick(100); // the ack of frame 1 has not come: this tick skips it
    expect(sent).toEqual([1]);
    sub.ack(1, 130);
    expect(sent).toEqual([1, 2]);
    // An ack in time sends nothing by itself: the next tick does.
    pump.markDirty();
    sub.ack(2, 150);
    expect(sent).toEqual([1, 2]);
    pump.tick(200);
    expect(sent).toEqual([1, 2, 3]);
  });

  it('takes an unacknowledged frame as lost after the ack timeout', () => {
    pump = new FramePump(frame, { intervalMs: 1e6, ackTimeoutMs: 3000 });
    const sent: number[] = [];
    pump.subscribe({ send: (f) => sent.push(f.n) });
    pump.tick(0);
    pump.markDirty();
    pump.tick(2999);
    expect(sent).toEqual([1]);
    pump.tick(3000);
    expect(sent).toEqual([1, 2]);
  });

  it('skips a subscriber whose transport is still busy, and serves the others', () => {
    pump = new FramePump(frame, { intervalMs: 1e6 });
    const busy: number[] = [];
    const free: number[] = [];
    pump.subscribe({ send: (f) => busy.push(f.n), writable: () => false });
    pump.subscribe({ send: (f) => free.push(f.n) });
    pump.tick(0);
    expect(busy).toEqual([]);
    expect(free).toEqual([1]);
  });

  it('stops sending to a closed subscription', () => {
    pump = new FramePump(frame, { intervalMs: 1e6 });
    const sent: number[] = [];
    const sub = pump.subscribe({ send: (f) => sent.push(f.n) });
    sub.close();
    pump.tick(0);
    expect(sent).toEqual([]);
  });
});
