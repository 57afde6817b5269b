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
    // And to what came after it: the newer events a held view says wait above it.
    expect(snap.newer).toBe(10);
    expect(ring.query({ offset: 0, limit: 5, upTo: 9, hash: 'h12' }).newer).toBe(1);
    expect(ring.query({ offset: 0, limit: 5, upTo: 9, hash: 'h3' }).newer).toBe(0);
    expect(ring.query({ offset: 0, limit: 5, upTo: 9, source: 'nosuch' }).newer).toBe(0);
    expect(ring.query({ offset: 0, limit: 5 })).not.toHaveProperty('newer');
  });

  it('matches no event when no type is asked for (every type box unticked listed them all)', () => {
    const ring = new EventRing(10);
    for (let i = 0; i < 4; i++) ring.push(stored('s', i, [`h${i}`]));
    expect(ring.query({ offset: 0, limit: 5, types: [] }).total).toBe(0);
    expect(ring.query({ offset: 0, limit: 5, types: ['BlockStored'] }).total).toBe(4);
    expect(ring.query({ offset: 0, limit: 5, types: ['BlockRemoved'] }).total).toBe(0);
  });

  it('grows to what a filling ring will need, not a quarter at a time', () => {
    // 20,000 rows of about the same length: a quarter at a time from 64 bytes a row took six
    // grows and ended up to a quarter past the need; the rows' mean length gets there at once.
    const ring = new EventRing(20_000);
    const hashes = Array.from({ length: 8 }, (_, j) => `1234567890123456789${j}`);
    for (let i = 0; i < 20_000; i++) ring.push(stored('s', i, hashes));
    const need = 20_000 * Buffer.byteLength(JSON.stringify(stored('s', 19_999, hashes)));
    expect(ring.arenaBytes()).toBeGreaterThanOrEqual(need);
    expect(ring.arenaBytes()).toBeLessThanOrEqual(1.15 * need);
    expect(ring.query({ offset: 0, limit: 1 }).rows[0]?.n).toBe(19_999);
  });

  it('answers a page asked past the end of a held snapshot with its last rows, from where they start', () => {
    // A reader held at the end of the list: the oldest rows leave the ring as new ones arrive.
    const ring = new EventRing(10);
    for (let i = 0; i < 10; i++) ring.push(stored('s', i, [`h${i}`]));
    expect(ring.query({ offset: 7, limit: 3, upTo: 9 }).rows.map((r) => r.n)).toEqual([2, 1, 0]);
    for (let i = 10; i < 16; i++) ring.push(stored('s', i, [`h${i}`]));
    const page = ring.query({ offset: 7, limit: 3, upTo: 9 });
    expect([page.total, page.offset]).toEqual([4, 1]);
    expect(page.rows.map((r) => r.n)).toEqual([8, 7, 6]);
    // Within the end, the offset asked is the offset answered.
    expect(ring.query({ offset: 2, limit: 3, upTo: 9 })).toMatchObject({ total: 4, offset: 2 });
  });

  it('says the earliest time it holds when the events before a time asked have left it', () => {
    const ring = new EventRing(5);
    for (let i = 0; i < 5; i++) ring.push(stored('s', 100 + i, [`h${i}`]));
    // Nothing left yet: none before 100 is none sent, not events gone.
    expect(ring.query({ offset: 0, limit: 5, beforeTs: 100 }).heldFromTs).toBeUndefined();
    for (let i = 5; i < 8; i++) ring.push(stored('s', 100 + i, [`h${i}`]));
    expect(ring.query({ offset: 0, limit: 5, beforeTs: 102 })).toMatchObject({
      total: 0,
      heldFromTs: 103,
    });
    // Some held before the time: no such note.
    expect(ring.query({ offset: 0, limit: 5, beforeTs: 104 })).not.toHaveProperty('heldFromTs');
    // A filter that matches nothing before the time, while events before it are held, says none.
    expect(ring.query({ offset: 0, limit: 5, beforeTs: 104, source: 'other' })).not.toHaveProperty(
      'heldFromTs',
    );
  });

  it('says -1 as the newest while empty', () => {
    expect(new EventRing(4).query({ offset: 0, limit: 1 })).toEqual({
      total: 0,
      offset: 0,
      rows: [],
      newest: -1,
    });
  });
});
