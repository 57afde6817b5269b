import { describe, expect, it } from 'vitest';
import { EventRing } from '../../electron/model/event-ring';
import { stored } from './helpers';

describe('the event ring', () => {
  it('answers a snapshot up to an arrival number: newer events never show, paging included', () => {
    const ring = new EventRing(100);
    for (let i = 0; i < 10; i++) ring.push(stored('s', i, [`h${i}`]));
    const held = ring.query({ offset: 0, limit: 3 });
    expect(held.newest).toBe(9);
    for (let i = 10; i < 20; i++) ring.push(stored('s', i, [`h${i}`]));
    const snap = ring.query({ offset: 0, limit: 3, upTo: held.newest });
    expect(snap.rows.map((r) => r.n)).toEqual(held.rows.map((r) => r.n));
    expect(snap.total).toBe(10);
    expect(snap.newest).toBe(19);
    expect(ring.query({ offset: 8, limit: 5, upTo: 9 }).rows.map((r) => r.n)).toEqual([1, 0]);
    // Filters apply inside the snapshot.
    expect(ring.query({ offset: 0, limit: 5, upTo: 9, hash: 'h1' }).rows.map((r) => r.n)).toEqual([
      1,
    ]);
  });

  it('says -1 as the newest while empty', () => {
    expect(new EventRing(4).query({ offset: 0, limit: 1 })).toEqual({
      total: 0,
      rows: [],
      newest: -1,
    });
  });
});
