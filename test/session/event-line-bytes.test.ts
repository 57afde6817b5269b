// The event line is written as UTF-8 bytes straight into a batch's buffer (the live path's
// recording and event ring copy those bytes): the bytes must be exactly the lines the string
// encoder wrote before (pinned), for the fixtures' events and every edge case, and the ring must
// read a row pushed as bytes as it reads one pushed as a string.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRing } from '../../electron/model/event-ring';
import { EventLines, eventLine, readEventLine } from '../../electron/session/event-line';
import { ROOT } from '../support/built-app';
import { eventLineCases } from '../support/event-line-cases';
import { asParts } from '../support/hash-parts';

const PINNED = readFileSync(path.join(ROOT, 'test/fixtures/session/event-lines.pinned.jsonl'));

describe('event lines as bytes', () => {
  it('writes a batch of lines byte for byte as pinned, each ending with a newline', () => {
    const cases = eventLineCases();
    const lines = new EventLines();
    for (const r of cases) lines.add(r);
    expect(lines.count).toBe(cases.length);
    expect(Buffer.compare(lines.buf.subarray(0, lines.end), PINNED)).toBe(0);
    const pinned = PINNED.toString('utf8').split('\n');
    for (let i = 0; i < cases.length; i++) {
      expect(lines.buf.toString('utf8', lines.lineStart(i), lines.lineEnd(i))).toBe(pinned[i]);
      expect(lines.buf[lines.lineEnd(i)]).toBe(0x0a);
      expect(eventLine(cases[i] as (typeof cases)[number])).toBe(pinned[i]);
    }
  });

  it("writes u64 hashes given as decimal parts (the live decoder's) as their texts' bytes", () => {
    const cases = eventLineCases();
    const byText = new EventLines();
    const byParts = new EventLines();
    let converted = 0;
    for (const r of cases) {
      const event = asParts(r.event);
      if (event !== r.event) converted += 1;
      byText.add(r);
      byParts.add({ ...r, event });
    }
    expect(converted).toBeGreaterThan(3);
    expect(byParts.buf.subarray(0, byParts.end).equals(byText.buf.subarray(0, byText.end))).toBe(
      true,
    );
    const base = cases[0] as (typeof cases)[number];
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
    fc.assert(
      fc.property(fc.array(u64, { minLength: 1, maxLength: 8 }), (hashes) => {
        const event = { ...base.event, block_hashes: hashes } as typeof base.event;
        byText.clear();
        byParts.clear();
        byText.add({ ...base, event });
        byParts.add({ ...base, event: asParts(event) });
        expect(byParts.buf.toString('latin1', 0, byParts.end)).toBe(
          byText.buf.toString('latin1', 0, byText.end),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a batch time as JSON.stringify does, epoch seconds to the microsecond or not', () => {
    const base = eventLineCases()[0] as ReturnType<typeof eventLineCases>[number];
    const lines = new EventLines();
    const tsText = (ts: number): string => {
      lines.clear();
      lines.add({ ...base, ts });
      const line = lines.buf.toString('latin1', 0, lines.lineEnd(0));
      return line.slice(line.indexOf('"ts":') + 5, line.indexOf(',', line.indexOf('"ts":')));
    };
    const edges = [
      1,
      0.999999,
      1.000001,
      1767225601.310731,
      1767225601.1,
      1767225601.000001,
      1767225601.1234567,
      2 ** 32 - 1e-6,
      2 ** 32 - 2 ** -20,
      2 ** 32,
      2 ** 32 + 0.5,
      123456.7,
      5e-7,
      -1767225601.5,
    ];
    for (const ts of edges) expect(tsText(ts)).toBe(JSON.stringify(ts));
    const micros = fc
      .tuple(fc.integer({ min: 1, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 999_999 }))
      .map(([s, us]) => s + us / 1e6);
    fc.assert(
      fc.property(fc.oneof(micros, fc.double({ min: 0, max: 2 ** 33, noNaN: true })), (ts) => {
        expect(tsText(ts)).toBe(JSON.stringify(ts));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps the lines written so far when a line needs a larger buffer', () => {
    const cases = eventLineCases().slice(-12);
    const lines = new EventLines();
    lines.buf = Buffer.alloc(8);
    for (const r of cases) lines.add(r);
    const want = cases.map((r) => `${eventLine(r)}\n`).join('');
    expect(lines.buf.toString('utf8', 0, lines.end)).toBe(want);
    // Cleared for the next batch: the same buffer, written from its start.
    lines.clear();
    lines.add(cases[0] as (typeof cases)[number]);
    expect(lines.buf.toString('utf8', 0, lines.end)).toBe(`${eventLine(cases[0]!)}\n`);
  });

  it('is read back by the event ring as the events that were pushed, bytes or string', () => {
    // The cases a session reader takes as events (a time that is not usable is an event error).
    const cases = eventLineCases()
      .slice(-40)
      .filter((r) => r.ts > 1e9 && r.ts < 1e10);
    const fromBytes = new EventRing(100, { readLine: readEventLine });
    const fromText = new EventRing(100, { readLine: readEventLine });
    const lines = new EventLines();
    for (const r of cases) lines.add(r);
    cases.forEach((r, i) => {
      fromBytes.pushBytes(r, lines.buf, lines.lineStart(i), lines.lineEnd(i));
      fromText.push(r, eventLine(r));
    });
    const all = { offset: 0, limit: 100 };
    expect(fromBytes.query(all)).toEqual(fromText.query(all));
    expect(fromBytes.query(all).rows.map((row) => row.event.type)).toEqual(
      [...cases].reverse().map((r) => r.event.type),
    );
  });
});
