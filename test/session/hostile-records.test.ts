// Hostile lines in sessions and captures: absurd times, newer or wrong headers, duplicate and
// u64 seqs, absurd hashes and counts. Each is a problem line; the rest of the file is kept.
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../electron/session/format';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { loadIntoModel } from '../../electron/session/load';
import { readSession } from '../../electron/session/read-session';
import { importSeedCapture } from '../../electron/session/seed-capture';
import type { EventRecord } from '../../shared/events';
import { stored } from '../model/helpers';
import { hashTexts } from '../../shared/hash-list';

const T0 = 1_767_225_600;
const header = JSON.stringify(makeHeader('0.1.0', new Date(0), []));

/** An event line of source a with the given seq, ts and hash. */
function ev(seq: number, ts: number, h: string, idx = 0): string {
  const rec: EventRecord = { ...stored('a', ts, [h]), seq, idx };
  return encodeRecord({ k: 'event', rec });
}
/** The same line with the ts replaced by raw JSON text (1e400, null, ...). */
const withTs = (line: string, ts: string): string => line.replace(/"ts":[^,]+,/, `"ts":${ts},`);

async function session(lines: string[]) {
  const recs: SessionRecord[] = [];
  const r = await readSession(Buffer.from(lines.join('\n') + '\n'), (x) => recs.push(x));
  const events = recs.flatMap((x) => (x.k === 'event' ? [x.rec] : []));
  return { ...r, recs, events };
}

async function capture(lines: string[]) {
  const recs: SessionRecord[] = [];
  const r = await importSeedCapture(Buffer.from(lines.join('\n') + '\n'), (x) => recs.push(x));
  const events = recs.flatMap((x) => (x.k === 'event' ? [x.rec] : []));
  return { ...r, recs, events };
}

const hashesOf = (events: EventRecord[]) =>
  events.flatMap((e) =>
    e.event.type === 'AllBlocksCleared' ? [] : hashTexts(e.event.block_hashes),
  );

const capLine = (fields: Record<string, string | number | null>): string =>
  `{${Object.entries(fields)
    .map(
      ([k, v]) =>
        `"${k}":${v === null ? 'null' : typeof v === 'string' && !/^[-\d[]/.test(v) ? JSON.stringify(v) : v}`,
    )
    .join(',')}}`;

describe('event time in files', () => {
  it.each([
    ['1e16', '1e16', /batch ts 10000000000000000 is out of range/],
    ['Infinity (1e400)', '1e400', /batch ts is \+Infinity/],
    ['NaN or Infinity written as null', 'null', /batch ts is null/],
  ])(
    'a session event at ts %s is an event error, counted; the model stays bounded',
    async (_, raw, why) => {
      const lines = [header, ev(1, T0, '1'), withTs(ev(2, T0, '2'), raw), ev(3, T0 + 9, '3')];
      const r = await session(lines);
      expect(hashesOf(r.events)).toEqual(['1', '3']);
      expect(r.counts.eventErrors).toBe(1);
      const err = r.recs.find((x) => x.k === 'event-error');
      expect(err?.k === 'event-error' && err.rec.error).toMatch(why);
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatch(/^line 3: batch ts .* \(kept as an event error\)$/);
      const loaded = await loadIntoModel(Buffer.from(lines.join('\n')));
      expect(loaded.model.kpis().storedBlocks).toBe(2);
      const s = loaded.model.series({ rangeSec: null });
      expect(s.points.length).toBeLessThanOrEqual(600);
      expect(s.points.at(-1)?.t).toBeLessThanOrEqual(T0 + 9);
    },
  );

  it.each([
    ['1e16', '1e16'],
    ['1e400', '1e400'],
    ['null', 'null'],
    ['a 17-digit integer', '17672256010000000'],
  ])('a capture event at ts %s is an event error, counted', async (_, raw) => {
    const line = (ts: string, h: number) =>
      `{"ts":${ts},"type":"BlockStored","block_hashes":[${h}],"parent_block_hash":null,"block_size":16}`;
    const r = await capture([line(String(T0), 1), line(raw, 2), line(String(T0 + 1), 3)]);
    expect(hashesOf(r.events)).toEqual(['1', '3']);
    expect(r.eventErrors).toBe(1);
    expect(r.recs.filter((x) => x.k === 'event-error')).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^line 2: batch ts .* \(kept as an event error\)$/);
  });

  it('lists 20 problem lines of a file full of bad times, then says how many more', async () => {
    const lines = [header];
    for (let i = 0; i < 25; i += 1) lines.push(withTs(ev(i + 1, T0, String(i)), '1e16'));
    const r = await session(lines);
    expect(r.counts.eventErrors).toBe(25);
    expect(r.problems).toHaveLength(21);
    expect(r.problems.at(-1)).toBe('… and 5 more lines with problems');
  });

  it('a gap at an absurd time is a bad line, not a marker at 1e16', async () => {
    const gap = JSON.stringify({ k: 'gap', source: 'a', from: 2, to: 3, at: 1e16 });
    const r = await session([header, ev(1, T0, '1'), gap, ev(4, T0, '4')]);
    expect(r.counts.gaps).toBe(0);
    expect(r.events).toHaveLength(2);
    expect(r.problems[0]).toMatch(/^line 3: gap at an unusable time: batch ts 10000000000000000/);
  });
});

describe('session record times', () => {
  it("names a reset's or a gap's missing or wrong time by its field, not as the ts", async () => {
    const reset = JSON.stringify({ k: 'reset', source: 'a', previousSeq: 1 });
    const gap = JSON.stringify({ k: 'gap', source: 'a', from: 2, to: 3, at: 'soon' });
    const r = await session([header, ev(1, T0, '1'), reset, gap, ev(4, T0, '4')]);
    expect(r.problems).toEqual([
      'line 3: at is missing (skipped)',
      'line 4: at "soon" is not a number (skipped)',
    ]);
    expect(r.events).toHaveLength(2);
  });
});

describe('session headers', () => {
  it('reads a version 3 session as made by a newer KV Scope, keeping what it understands', async () => {
    const v3 = JSON.stringify({ ...makeHeader('9.0.0', new Date(0), []), version: 3 });
    const r = await session([v3, ev(1, T0, '1'), ev(2, T0, '2')]);
    expect(r.problems[0]).toBe(
      'made by a newer KV Scope (version 3; this one reads version 2): what this version understands was read; update KV Scope to read all of it',
    );
    expect(r.header.version).toBe(3);
    expect(r.events).toHaveLength(2);
  });

  it('names each wrong header field in a problem line and ignores it', async () => {
    const bad = JSON.stringify({
      format: 'kvscope-session',
      version: 'one',
      app: 5,
      startedAt: 'yesterday',
      sources: [{ id: 'a', name: 'A' }, { name: 'no id' }],
    });
    const r = await session([bad, ev(1, T0, '1')]);
    expect(r.problems).toEqual([
      'header: version "one" is not a version number (read as version 2)',
      'header: app 5 is not a name (ignored)',
      'header: startedAt "yesterday" is not a date (ignored)',
      'header: sources[1] is not a source with an id (ignored)',
    ]);
    expect(r.header.sources.map((s) => s.id)).toEqual(['a']);
    expect(r.events).toHaveLength(1);
    const notList = JSON.stringify({ ...makeHeader('t', new Date(0), []), sources: 'all' });
    expect((await session([notList])).problems).toEqual([
      'header: sources "all" is not a list (ignored)',
    ]);
  });
});

describe('duplicate seqs in files', () => {
  it('applies a session batch read twice once, and counts its events as duplicates', async () => {
    const lines = [
      header,
      ev(5, T0, '50', 0),
      ev(5, T0, '51', 1),
      ev(6, T0 + 1, '60'),
      ev(5, T0, '50', 0), // batch 5 again, after 6
      ev(5, T0, '51', 1),
      ev(6, T0 + 1, '60'), // the same line twice in a row
      ev(7, T0 + 2, '70'),
    ];
    const r = await session(lines);
    expect(hashesOf(r.events)).toEqual(['50', '51', '60', '70']);
    expect(r.counts.duplicates).toBe(3);
    expect(r.counts.events).toBe(4);
    expect(r.problems).toEqual([
      "3 events of batches already read (a seq read before, or a batch older than its source's first): skipped, counted as duplicates (a copy's batch counts once, where it was first read; a batch whose lines came out of order is not applied)",
    ]);
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n')));
    expect(loaded.model.kpis().storedBlocks).toBe(4);
  });

  it('reads seq 0 after a reset record, or far back, as a restart, not a duplicate', async () => {
    const reset = JSON.stringify({ k: 'reset', source: 'a', previousSeq: 7, at: T0 + 3 });
    const r = await session([header, ev(6, T0, '1'), ev(7, T0, '2'), reset, ev(0, T0 + 4, '3')]);
    expect(r.counts.duplicates).toBe(0);
    expect(hashesOf(r.events)).toEqual(['1', '2', '3']);
    // No reset record (two recordings pasted together): the seq going back to 0 says it.
    const glued = await session([header, ev(500, T0, '1'), ev(0, T0 + 5, '2')]);
    expect(glued.counts.duplicates).toBe(0);
    expect(glued.recs.map((x) => x.k)).toEqual(['event', 'reset', 'event']);
    expect(glued.counts.resets).toBe(1);
  });

  it('counts a line copied far behind its batch as a duplicate, its run and resident blocks unchanged', async () => {
    // 300 batches, each storing a block; a copy of batch 10's line at the end, far past the
    // window within which the sequencer tells a restart.
    const lines = [header];
    for (let seq = 0; seq < 300; seq++) lines.push(ev(seq, T0 + seq, String(1000 + seq)));
    const clean = await loadIntoModel(Buffer.from(lines.join('\n')));
    lines.push(lines[11] as string);
    const r = await session(lines);
    expect(r.counts.duplicates).toBe(1);
    expect(r.counts.resets).toBe(0);
    expect(r.events).toHaveLength(300);
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n')));
    expect(loaded.model.kpis().residentBlocks).toBe(300);
    expect(loaded.model.kpis()).toEqual(clean.model.kpis());
    // A capture reads the same copy the same way.
    const line = (seq: number) =>
      `{"ts":${T0 + seq},"type":"BlockStored","block_hashes":[${1000 + seq}],"parent_block_hash":null,"block_size":16,"seq":${seq},"dp_rank":0}`;
    const cap = await capture([...Array.from({ length: 300 }, (_, seq) => line(seq)), line(10)]);
    expect(cap.duplicates).toBe(1);
    expect(cap.recs.filter((x) => x.k === 'reset')).toHaveLength(0);
  });

  it('reads another recording joined on (cat a b) from its own start: nothing of it dropped, nothing of the first kept', async () => {
    const first = [header];
    for (let seq = 0; seq < 100; seq++) first.push(ev(seq, T0 + seq, String(1000 + seq)));
    // The second recording, of another app run: the same source id, seqs the first read too, and
    // its blocks are its own (the app joined the engine mid-stream).
    const second = [JSON.stringify(makeHeader('0.1.0', new Date(3_600_000), []))];
    for (let seq = 50; seq < 80; seq++) second.push(ev(seq, T0 + 3600 + seq, String(9000 + seq)));
    const r = await session([...first, ...second]);
    expect(r.events).toHaveLength(130);
    expect(r.counts.duplicates).toBe(0);
    expect(r.counts.resets).toBe(1);
    expect(r.problems).toContain(
      "line 102: another recording's header (two sessions joined): each source starts over at its first batch after it, read as a restart",
    );
    const loaded = await loadIntoModel(Buffer.from([...first, ...second].join('\n')));
    const alone = await loadIntoModel(Buffer.from(second.join('\n')));
    expect(loaded.model.kpis()).toMatchObject({
      storedBlocks: 130,
      residentBlocks: alone.model.kpis().residentBlocks,
    });
    expect(loaded.analysis.report().totals.residentBlocks).toBe(30);
    // The second recording once more after it (cat a b b): copies, whichever header it repeats.
    const again = await loadIntoModel(Buffer.from([...first, ...second, ...second].join('\n')));
    expect(again.model.kpis()).toEqual(loaded.model.kpis());
  });

  it('reads a session joined with itself (cat s s) as copies: its figures are its own', async () => {
    const lines = [header];
    for (let seq = 0; seq < 100; seq++) lines.push(ev(seq, T0 + seq, String(1000 + seq)));
    const clean = await loadIntoModel(Buffer.from(lines.join('\n')));
    const r = await session([...lines, ...lines]);
    expect(r.counts.duplicates).toBe(100);
    expect(r.counts.resets).toBe(0);
    expect(r.problems).toContain(
      'line 102: a header read before again (a session joined with itself?): its batches read again are duplicates',
    );
    const loaded = await loadIntoModel(Buffer.from([...lines, ...lines].join('\n')));
    expect(loaded.model.kpis()).toEqual(clean.model.kpis());
  });

  it('counts a line of an earlier run, copied after a restart, as a duplicate: it starts no run', async () => {
    const lines = [header];
    for (let seq = 0; seq < 100; seq++) lines.push(ev(seq, T0 + seq, String(1000 + seq)));
    lines.push(JSON.stringify({ k: 'reset', source: 'a', previousSeq: 99, at: T0 + 500 }));
    for (let seq = 0; seq < 200; seq++) lines.push(ev(seq, T0 + 1000 + seq, String(5000 + seq)));
    const clean = await loadIntoModel(Buffer.from(lines.join('\n')));
    // The first run's seq 0 and seq 50, timed before the second run began.
    lines.push(lines[1] as string, lines[51] as string);
    const r = await session(lines);
    expect(r.counts.duplicates).toBe(2);
    expect(r.counts.resets).toBe(1);
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n')));
    expect(loaded.model.kpis()).toEqual(clean.model.kpis());
    // The restart emptied the first run's blocks: the second run's are resident.
    expect(loaded.model.kpis().residentBlocks).toBe(200);
  });

  it('applies a capture batch read twice once (kvscope capture --json with seqs)', async () => {
    const line = (seq: number, h: number) =>
      `{"ts":${T0 + seq},"type":"BlockStored","block_hashes":[${h}],"parent_block_hash":null,"block_size":16,"seq":${seq},"dp_rank":0}`;
    const r = await capture([line(1, 10), line(2, 20), line(3, 30), line(2, 20), line(4, 40)]);
    expect(hashesOf(r.events)).toEqual(['10', '20', '30', '40']);
    expect(r.duplicates).toBe(1);
    expect(r.problems).toContain(
      "1 event of batches already read (a seq read before, or a batch older than its source's first): skipped, counted as duplicates (a copy's batch counts once, where it was first read; a batch whose lines came out of order is not applied)",
    );
    // A restarted engine (seq back to 0, its batch after the last one) is a reset, not a duplicate.
    const restarted = await capture([
      line(3, 1),
      line(4, 2),
      line(0, 3).replace(`${T0}`, `${T0 + 9}`),
    ]);
    expect(restarted.duplicates).toBe(0);
    expect(restarted.recs.map((x) => x.k)).toEqual(['event', 'event', 'reset', 'event']);
  });
});

describe('one bad line among good ones', () => {
  it('keeps the batches around a line whose seq was corrupted upwards (session and capture)', async () => {
    // Batch 2's second line says 5: batches 3 and 4 were never read, and are no duplicates.
    const lines = [header, ev(1, T0, '10'), ev(2, T0, '20', 0), ev(5, T0, '21', 1)];
    lines.push(ev(3, T0 + 1, '30'), ev(4, T0 + 2, '40'), ev(5, T0 + 3, '50'));
    const r = await session(lines);
    expect(hashesOf(r.events)).toEqual(['10', '20', '21', '30', '40', '50']);
    expect(r.counts.duplicates).toBe(0);
    const line = (seq: number, h: number) =>
      `{"ts":${T0 + seq},"type":"BlockStored","block_hashes":[${h}],"parent_block_hash":null,"block_size":16,"seq":${seq},"dp_rank":0}`;
    const c = await capture([line(1, 10), line(9, 20), line(2, 30), line(3, 40), line(2, 30)]);
    expect(hashesOf(c.events)).toEqual(['10', '20', '30', '40']);
    expect(c.duplicates).toBe(1);
  });

  it('counts a batch with one unusable event time as one batch, its event an error', async () => {
    const line = (seq: number, ts: string, h: number) =>
      `{"ts":${ts},"type":"BlockStored","block_hashes":[${h}],"parent_block_hash":null,"block_size":16,"seq":${seq},"dp_rank":0}`;
    const t = String(T0);
    const lines = [line(1, t, 1), line(1, t, 2), line(1, '1e300', 3), line(1, t, 4), line(2, t, 5)];
    const loaded = await loadIntoModel(Buffer.from(`${lines.join('\n')}\n`));
    const input = loaded.analysis.report().input;
    expect(input.batches).toBe(2);
    expect(loaded.events).toBe(4);
    expect(loaded.model.kpis().storedBlocks).toBe(4);
    expect(input.eventErrors).toBe(1);
  });
});

describe('u64 seqs, absurd hashes and counts', () => {
  it('counts a batch whose seq is beyond 2^53 as one undecoded record, as live, and applies none of it (session)', async () => {
    const big = (h: string, idx: number) =>
      ev(1, T0, h, idx).replace('"seq":1,', '"seq":18446744073709551615,');
    const lines = [header, ev(1, T0, '1'), big('2', 0), big('4', 1), ev(2, T0, '3')];
    const r = await session(lines);
    expect(hashesOf(r.events)).toEqual(['1', '3']);
    // One record for the batch's two lines, their bytes summed, named by the seq's exact digits
    // (JSON.parse alone would have rounded them to 18446744073709552000).
    const undecoded = r.recs.flatMap((x) => (x.k === 'undecoded' ? [x.rec] : []));
    expect(undecoded).toEqual([
      {
        source: 'a',
        seq: null,
        bytes: Buffer.byteLength(lines[2] as string) + Buffer.byteLength(lines[3] as string),
        error:
          "SeqError: seq 18446744073709551615 is out of reach (past 2^53 - 1, the largest seq kept exact): a garbled line or another publisher's batch; its batch is not applied",
        at: T0,
      },
    ]);
    expect(r.recs.map((x) => x.k)).toEqual(['event', 'undecoded', 'event']);
    expect(r.counts).toMatchObject({ events: 2, undecoded: 1, skippedLines: 0, duplicates: 0 });
    expect(r.problems).toEqual([
      'line 3: seq 18446744073709551615 is out of reach (past 2^53 - 1, the largest seq kept exact): its batch is not applied, counted as undecoded as live',
    ]);
    // Opened, the source counts it as undecoded, as a live source counts a frame of that seq.
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n') + '\n'));
    expect(loaded.model.kpis().undecoded).toBe(1);
  });

  it('names a capture seq beyond 2^53 by its exact digits, counts its batch undecoded, and keeps 2^53 - 1', async () => {
    const line = (seq: string, h: number) =>
      `{"ts":${T0},"type":"BlockRemoved","block_hashes":[${h}],"seq":${seq}}`;
    const r = await capture([
      line('9007199254740991', 1),
      line('9007199254740993', 2),
      line('9007199254740993', 4),
      line('18446744073709551615', 3),
    ]);
    expect(r.events.map((e) => e.seq)).toEqual([9007199254740991]);
    expect(r.undecoded).toBe(2);
    expect(r.skippedLines).toBe(0);
    expect(r.recs.map((x) => (x.k === 'undecoded' ? x.rec.error.slice(0, 32) : x.k))).toEqual([
      'event',
      'SeqError: seq 9007199254740993 i',
      'SeqError: seq 184467440737095516',
    ]);
    expect(r.problems).toEqual([
      'line 2: seq 9007199254740993 is out of reach (past 2^53 - 1, the largest seq kept exact): its batch is not applied, counted as undecoded as live',
      'line 4: seq 18446744073709551615 is out of reach (past 2^53 - 1, the largest seq kept exact): its batch is not applied, counted as undecoded as live',
    ]);
  });

  it('still skips a gap or a reset line naming a seq beyond 2^53 (a bad line, no batch)', async () => {
    const gap =
      '{"k":"gap","source":"a","from":1,"to":"18446744073709551615","at":1,"recovered":0,"lost":1}';
    const r = await session([header, ev(1, T0, '1'), gap]);
    expect(r.counts).toMatchObject({ events: 1, gaps: 0, undecoded: 0, skippedLines: 1 });
    expect(r.problems[0]).toMatch(/^line 3: to 18446744073709551615 is beyond 2\^53/);
  });

  it('skips a 5,000-digit hash as a bad line and keeps the rest (session and capture)', async () => {
    const digits = '9'.repeat(5000);
    const s = await session([header, ev(1, T0, '1'), ev(2, T0, digits), ev(3, T0, '3')]);
    expect(hashesOf(s.events)).toEqual(['1', '3']);
    expect(s.problems).toEqual([
      'line 3: block hash of 5000 digits is longer than any block hash (at most 256 characters) (skipped)',
    ]);
    const line = (h: string) => `{"ts":${T0},"type":"BlockRemoved","block_hashes":[${h}]}`;
    const c = await capture([line('1'), line(digits), line('3')]);
    expect(hashesOf(c.events)).toEqual(['1', '3']);
    expect(c.problems[0]).toMatch(
      /^line 2: block hash of 5000 digits is longer than any block hash/,
    );
    const c2 = await capture([line('18446744073709551616')]);
    expect(c2.problems[0]).toBe(
      'line 1: block hash 18446744073709551616 does not fit 64 bits (skipped)',
    );
  });

  it('skips a block_size of 0 as a frame would, and takes a negative int hash as a frame does (session and capture)', async () => {
    const zero = ev(2, T0, '2').replace(/"block_size":\d+/, '"block_size":0');
    const s = await session([header, ev(1, T0, '-5'), zero, ev(3, T0, '3')]);
    expect(hashesOf(s.events)).toEqual(['-5', '3']);
    expect(s.counts.skippedLines).toBe(1);
    expect(s.problems).toEqual([
      'line 3: block_size 0 is out of range (a whole number from 1 to 1048576) (skipped)',
    ]);
    const line = (bs: number, h: number) =>
      capLine({ ts: T0, type: 'BlockStored', block_hashes: `[${h}]`, block_size: bs });
    const c = await capture([line(16, -5), line(0, 2), line(16, 3)]);
    expect(hashesOf(c.events)).toEqual(['-5', '3']);
    expect(c.problems).toEqual([
      'line 2: block_size 0 is out of range (a whole number from 1 to 1048576) (skipped)',
    ]);
  });

  it('skips a session hash no decoder writes (a sign on a zero, upper-case or odd hex)', async () => {
    const s = await session([
      header,
      ev(1, T0, '1'),
      ev(2, T0, '-0'),
      ev(3, T0, 'ABCD'),
      ev(4, T0, 'abc'),
      ev(5, T0, '0a'),
    ]);
    expect(hashesOf(s.events)).toEqual(['1', '0a']);
    expect(s.problems.map((p) => p.replace(/ is not a block hash.*/, ''))).toEqual([
      'line 3: block hash -0',
      'line 4: block hash "ABCD"',
      'line 5: block hash "abc"',
    ]);
  });

  it('skips a token_count of 1e308 as a bad line and keeps the rest (session and capture)', async () => {
    const huge = ev(2, T0, '2').replace(/"token_count":\d+/, '"token_count":1e308');
    const s = await session([header, ev(1, T0, '1'), huge, ev(3, T0, '3')]);
    expect(hashesOf(s.events)).toEqual(['1', '3']);
    expect(s.problems).toEqual([
      'line 3: token_count 1e+308 is out of range (a whole number from 0 to 4294967296) (skipped)',
    ]);
    const line = (tc: string, h: number) =>
      capLine({ ts: T0, type: 'BlockStored', block_hashes: `[${h}]`, token_count: tc });
    const c = await capture([line('16', 1), line('1e308', 2), line('-1', 3)]);
    expect(hashesOf(c.events)).toEqual(['1']);
    expect(c.problems).toEqual([
      'line 2: token_count 1e+308 is out of range (a whole number from 0 to 4294967296) (skipped)',
      'line 3: token_count -1 is out of range (a whole number from 0 to 4294967296) (skipped)',
    ]);
  });

  it('refuses a label of the wrong type as a problem line, not a medium of its own', async () => {
    const good = ev(1, T0, '11');
    const list = ev(2, T0, '22').replace('"medium":"GPU"', '"medium":["GPU"]');
    const numbered = ev(3, T0, '33').replace('"source":"a"', '"source":123');
    expect(list).toContain('["GPU"]');
    expect(numbered).toContain('"source":123');
    const s = await session([header, good, list, numbered]);
    expect(hashesOf(s.events)).toEqual(['11']);
    expect(s.problems).toEqual([
      'line 3: medium a list of 1 is not a string (skipped)',
      'line 4: source 123 is not a string (skipped)',
    ]);
    const c = await capture([
      capLine({ ts: T0, type: 'BlockStored', block_hashes: '[5]', medium: 'GPU' }),
      capLine({ ts: T0 + 1, type: 'BlockStored', block_hashes: '[6]', medium: 7 }),
    ]);
    expect(c.events.map((e) => e.event.medium)).toEqual(['GPU']);
    expect(c.problems).toEqual(['line 2: medium 7 is not a string (skipped)']);
  });
});
