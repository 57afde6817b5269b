import { describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { createFrameStore, initialFrameState, reduceFrame } from '../../renderer/state/frame-store';
import { updateFrame } from '../support/update-frame';

function frame(n: number, epoch: number, resident = 0): UpdateFrame {
  return updateFrame(n, { epoch, nowTs: n }, { residentBlocks: resident });
}

describe('frame store', () => {
  it('keeps the latest frame and counts frames within an epoch', () => {
    let s = reduceFrame(initialFrameState, frame(1, 0, 5));
    s = reduceFrame(s, frame(2, 0, 7));
    expect(s.frame?.kpis.residentBlocks).toBe(7);
    expect(s.received).toBe(2);
    expect(s.resets).toBe(0);
  });

  it('resets the view state when the epoch changes', () => {
    let s = reduceFrame(initialFrameState, frame(1, 0));
    s = reduceFrame(s, frame(2, 0));
    s = reduceFrame(s, frame(3, 1));
    expect(s.epoch).toBe(1);
    expect(s.received).toBe(1);
    expect(s.resets).toBe(1);
  });

  it('keeps the name of a source after it leaves the frames, and one map while none changes', () => {
    const named = (n: number, sources: { id: string; name: string }[]) =>
      ({ ...frame(n, 0), sources }) as unknown as UpdateFrame;
    let s = reduceFrame(initialFrameState, named(1, [{ id: 'a', name: 'engine-a' }]));
    const first = s.names;
    s = reduceFrame(s, named(2, [{ id: 'a', name: 'engine-a' }]));
    expect(s.names).toBe(first);
    s = reduceFrame(s, named(3, [{ id: 'b', name: 'engine-b' }]));
    expect([...s.names]).toEqual([
      ['a', 'engine-a'],
      ['b', 'engine-b'],
    ]);
  });

  it('names an opened session’s sources as its view says, over a live source of the same id', () => {
    const live = {
      ...frame(1, 0),
      sources: [{ id: 'a', name: 'engine-a' }],
    } as unknown as UpdateFrame;
    let s = reduceFrame(initialFrameState, live);
    const opened = frame(2, 1);
    opened.view = { ...opened.view, kind: 'session', sources: [{ id: 'a', name: 'simdp2 #0' }] };
    s = reduceFrame(s, { ...opened, sources: live.sources });
    expect(s.names.get('a')).toBe('simdp2 #0');
  });

  it('forgets an opened session’s names once back to live, and keeps the live ones', () => {
    const sources = [{ id: 'a', name: 'engine-a' }];
    let s = reduceFrame(initialFrameState, { ...frame(1, 0), sources } as unknown as UpdateFrame);
    const opened = { ...frame(2, 1), sources } as unknown as UpdateFrame;
    opened.view = {
      ...opened.view,
      kind: 'session',
      sources: [
        { id: 'capture', name: 'capture.jsonl' },
        { id: 'a', name: 'file-a' },
      ],
    };
    s = reduceFrame(s, opened);
    expect(s.names.get('capture')).toBe('capture.jsonl');
    expect(s.names.get('a')).toBe('file-a');
    s = reduceFrame(s, { ...frame(3, 2), sources } as unknown as UpdateFrame);
    expect([...s.names]).toEqual([['a', 'engine-a']]);
    // Opened again, a file's names come back for it alone.
    s = reduceFrame(s, { ...opened, n: 4, epoch: 3 } as UpdateFrame);
    expect(s.names.get('capture')).toBe('capture.jsonl');
  });

  it('notifies subscribers with a new snapshot and stops after unsubscribe', () => {
    const store = createFrameStore();
    const seen: number[] = [];
    const off = store.subscribe(() => seen.push(store.getState().frame?.n ?? -1));
    const before = store.getState();
    store.apply(frame(1, 0));
    expect(store.getState()).not.toBe(before);
    off();
    store.apply(frame(2, 0));
    expect(seen).toEqual([1]);
    expect(store.getState().receivedAt).toBeGreaterThan(0);
  });
});
