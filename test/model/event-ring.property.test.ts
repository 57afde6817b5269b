// The event ring holds its rows as bytes with columns beside them; what a query answers must be
// what a plain list of the records answers, whatever the arena did (grew, wrapped, dropped rows).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventQuery, EventRow } from '../../shared/api-types';
import type { EventRecord, HashTexts, KvEventType } from '../../shared/events';
import { EventRing } from '../../electron/model/event-ring';
import { hashMatcher } from '../../electron/model/hash-query';
import { EventLines, eventLine, readEventLine } from '../../electron/session/event-line';
import { cleared, removed, stored } from './helpers';

/** The filters of EventQuery over a plain list, oldest first, as the event log defines them. */
function reference(held: EventRecord<HashTexts>[], firstN: number, q: EventQuery) {
  const match = hashMatcher(q.hash);
  const newest = firstN + held.length - 1;
  const matches = (rec: EventRecord<HashTexts>): boolean => {
    const ev = rec.event;
    if (q.types && !q.types.includes(ev.type)) return false;
    if (q.beforeTs !== undefined && !(rec.ts < q.beforeTs)) return false;
    if (q.source !== undefined && q.source !== '' && rec.source !== q.source) return false;
    if (q.medium !== undefined && (ev.medium ?? 'unspecified') !== q.medium) return false;
    if (match) {
      if (ev.type === 'AllBlocksCleared') return false;
      const parent = ev.type === 'BlockStored' ? ev.parent_block_hash : null;
      if (!ev.block_hashes.some(match) && !(parent !== null && match(parent))) return false;
    }
    return true;
  };
  const rows: EventRow[] = [];
  let total = 0;
  let newer = 0;
  for (let i = held.length - 1; i >= 0; i -= 1) {
    const rec = held[i] as EventRecord<HashTexts>;
    const n = firstN + i;
    if (!matches(rec)) continue;
    if (q.upTo !== undefined && n > q.upTo) newer += 1;
    else {
      rows.push({ ...rec, n });
      total += 1;
    }
  }
  // A page asked past the end is the last page, from where it starts.
  const offset = q.offset >= total && total > 0 ? Math.max(0, total - q.limit) : q.offset;
  const page = {
    total,
    offset,
    rows: rows.slice(offset, offset + q.limit),
    newest,
    ...(q.upTo === undefined ? {} : { newer }),
    // Older events left: how many it holds, whatever the filters.
    ...(firstN > 0 ? { kept: held.length } : {}),
  };
  // None before the time asked, while older events left: every one held is at or past it.
  const earliest = Math.min(...held.map((r) => r.ts));
  if (q.beforeTs !== undefined && total === 0 && firstN > 0 && earliest >= q.beforeTs)
    return { ...page, heldFromTs: earliest };
  return page;
}

// Hashes and names chosen to meet each other: a source or lora named like a hash prefix, hex
// letters that begin field names and values ("b" of block_hashes, "e" of "event"), long rows.
const hash = fc.oneof(
  fc.constantFrom('12', '123', '1234567', 'b0', 'beef', 'e1', 'ff', '18446744073709551615'),
  fc.stringMatching(/^[0-9a-f]{1,6}$/),
  fc.constant('7'.repeat(64)),
);
const source = fc.constantFrom('a', 'b', '12', 'e\u00e9', 'quo"te');
const medium = fc.constantFrom('GPU', 'CPU', null, '123', 'unspecified');
const rec = fc.oneof(
  fc
    .record({
      src: source,
      ts: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => x + 0),
      hs: fc.array(hash, { maxLength: 6 }),
      parent: fc.option(hash),
      med: medium,
      lora: fc.option(fc.constantFrom('12-lora', 'beef', 'chat')),
    })
    .map((o): EventRecord<HashTexts> => {
      const r = stored(o.src, o.ts, o.hs, o.parent, o.med);
      if (r.event.type === 'BlockStored') r.event.lora_name = o.lora;
      return r;
    }),
  fc
    .record({ src: source, ts: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => x + 0) })
    .chain((o) => fc.array(hash, { maxLength: 4 }).map((hs) => removed(o.src, o.ts, hs, 'CPU'))),
  source.map((s) => cleared(s, 5)),
);
const TYPES: KvEventType[] = ['BlockStored', 'BlockRemoved', 'AllBlocksCleared'];
const query = fc.record(
  {
    types: fc.subarray(TYPES),
    source: fc.oneof(source, fc.constant(''), fc.constant('nobody')),
    medium: fc.constantFrom('GPU', 'CPU', 'unspecified', '123', 'none'),
    hash: fc.constantFrom(
      '1',
      '12',
      '123',
      'b',
      'e',
      'be',
      '0xff',
      'FF',
      ' 7777',
      'quo',
      '"1',
      'é',
    ),
    upTo: fc.nat(80),
    beforeTs: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    offset: fc.nat(10),
    limit: fc.nat(20),
  },
  { requiredKeys: ['offset', 'limit'] },
);

// The same hash asked again and again, so that verdicts kept from an earlier query are reused.
const hashOnly = fc.record({
  hash: fc.constantFrom('1', '12', 'e', 'b', '0xff'),
  offset: fc.constant(0),
  limit: fc.constant(20),
});

describe('the event ring (bytes and columns)', () => {
  it('answers every query as a plain list of the records, while its arena grows and wraps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        // Pushes and queries interleaved: a query asked again sees the rows pushed since.
        fc.array(
          fc.oneof(
            rec.map((r) => ({ r })),
            fc.oneof(query, hashOnly).map((q) => ({ q })),
          ),
          {
            maxLength: 100,
            size: 'large',
          },
        ),
        fc.boolean(),
        (capacity, ops, lines) => {
          // A tiny first arena: rows push it to grow, then to wrap as the oldest make room.
          const ring = new EventRing(capacity, {
            initialBytes: 64,
            maxBytes: 1 << 20,
            readLine: lines ? readEventLine : undefined,
          });
          const recs: EventRecord<HashTexts>[] = [];
          for (const op of ops) {
            if ('r' in op) {
              ring.push(op.r, lines ? eventLine(op.r) : undefined);
              recs.push(op.r);
              continue;
            }
            const held = recs.slice(-capacity);
            expect(ring.query(op.q)).toEqual(reference(held, recs.length - held.length, op.q));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers the same when batches of lines are pushed as bytes in one copy (pushLines)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(
          fc.oneof(
            fc.array(rec, { minLength: 1, maxLength: 5 }).map((batch) => ({ batch })),
            fc.oneof(query, hashOnly).map((q) => ({ q })),
          ),
          { maxLength: 60, size: 'large' },
        ),
        fc.integer({ min: 64, max: 4096 }),
        (capacity, ops, maxBytes) => {
          // Tiny arenas: batches make them grow (runs of rows a newline apart copied whole), wrap,
          // and drop rows for bytes as well as for slots; a batch longer than a row may be is
          // pushed line by line.
          const ring = new EventRing(capacity, {
            initialBytes: 64,
            maxBytes,
            readLine: readEventLine,
          });
          const lines = new EventLines();
          const recs: EventRecord<HashTexts>[] = [];
          for (const op of ops) {
            if ('batch' in op) {
              lines.clear();
              for (const r of op.batch) lines.add(r);
              ring.pushLines(op.batch, lines);
              recs.push(...op.batch);
              continue;
            }
            const page = ring.query(op.q);
            // Rows dropped for bytes: the ring holds the newest `held` of them.
            const held = recs.slice(recs.length - ring.size());
            expect(page).toEqual(reference(held, recs.length - held.length, op.q));
          }
          const all = ring.query({ offset: 0, limit: 100 });
          expect(all.rows.map((r) => r.n)).toEqual(
            Array.from({ length: ring.size() }, (_, k) => recs.length - 1 - k),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps the newest rows that fit its byte cap, with their arrival numbers', () => {
    const ring = new EventRing(1000, { initialBytes: 1024, maxBytes: 16 * 1024 });
    const recs = Array.from({ length: 400 }, (_, i) =>
      stored(
        'a',
        i,
        Array.from({ length: 1 + (i % 7) }, (_, j) => `${i}${j}`),
      ),
    );
    for (const r of recs) ring.push(r);
    expect(ring.arenaBytes()).toBe(16 * 1024);
    const page = ring.query({ offset: 0, limit: 1000 });
    expect(page.newest).toBe(399);
    // Fewer than the capacity: the bytes ran out first, the oldest went.
    expect(page.total).toBeGreaterThan(20);
    expect(page.total).toBeLessThan(400);
    const kept = recs.slice(-page.total).reverse();
    expect(page.rows).toEqual(kept.map((r, k) => ({ ...r, n: 399 - k })));
  });

  it('shows a row longer than the arena allows, beside it', () => {
    const ring = new EventRing(10, { initialBytes: 1024, maxBytes: 16 * 1024 });
    const big = stored(
      'a',
      1,
      Array.from({ length: 500 }, (_, i) => `${1000 + i}`),
    );
    ring.push(stored('a', 0, ['1']));
    ring.push(big);
    ring.push(stored('a', 2, ['2']));
    expect(ring.query({ offset: 0, limit: 10 }).rows.map((r) => r.n)).toEqual([2, 1, 0]);
    const found = ring.query({ offset: 0, limit: 10, hash: '1499' });
    expect(found.rows).toEqual([{ ...big, n: 1 }]);
    for (let i = 0; i < 20; i += 1) ring.push(stored('a', 3 + i, [`${i}`]));
    expect(ring.query({ offset: 0, limit: 10, hash: '1499' }).total).toBe(0);
  });

  it('reads the lines it is given with its reader, and holds no record', () => {
    const read: string[] = [];
    const ring = new EventRing(4, {
      readLine: (line) => {
        read.push(line);
        return readEventLine(line);
      },
    });
    const hashes = ['5', '6'];
    const r = stored('a', 1, hashes);
    ring.push(r, eventLine(r));
    // The record is the caller's again: changing it changes nothing the ring shows.
    hashes.push('7');
    expect(ring.query({ offset: 0, limit: 1 }).rows[0]?.event).toMatchObject({
      block_hashes: ['5', '6'],
    });
    expect(read).toHaveLength(1);
    expect(read[0]).toContain('"block_hashes":["5","6"]');
  });
});
