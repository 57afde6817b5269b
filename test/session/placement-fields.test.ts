// vLLM's locality and ownership (mid-2026) through a saved session and a capture import: kept
// when they are labels, absent (not null) when they were not sent, so old files read as before.
import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { EventJsonWriter } from '../../electron/cli/event-json';
import { LineOutput } from '../../electron/cli/line-output';
import type { SessionRecord } from '../../electron/session/format';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { readSession } from '../../electron/session/read-session';
import { importSeedCapture } from '../../electron/session/seed-capture';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { EventRecord } from '../../shared/events';
import { Writable } from 'node:stream';

const header = JSON.stringify(makeHeader('0.1.0', new Date(0), []));
const encoder = new Encoder({ useBigInt64: true });

/** The event records of a live batch with a placed store, a placed removal and a plain store. */
function liveRecords(): EventRecord[] {
  const payload = encoder.encode([
    1767225600.5,
    [
      {
        type: 'BlockStored',
        block_hashes: [7n, 2n ** 64n - 1n],
        parent_block_hash: null,
        token_ids: [1, 2, 3, 4],
        block_size: 16,
        medium: 'STORAGE',
        locality: 'REMOTE',
        ownership: 'tier-2',
        session_id: 'sess-secret',
      },
      { type: 'BlockRemoved', block_hashes: [7n], medium: 'STORAGE', locality: 'LOCAL' },
      ['BlockStored', [9n], null, [1, 2], 16, null, 'GPU'],
    ],
    0,
  ]);
  const r = decodeBatch(payload);
  if (!r.ok || r.ts === null) throw new Error('the fixture batch did not decode');
  const ts = r.ts;
  return r.events.map((e, idx) => ({
    source: 'a',
    seq: 4,
    ts,
    dp_rank: 0,
    idx,
    event: e.event,
  }));
}

async function readBack(lines: string[], read: typeof readSession | typeof importSeedCapture) {
  const recs: SessionRecord[] = [];
  const res = await read(Buffer.from(lines.join('\n') + '\n'), (x) => recs.push(x));
  return { res, events: recs.flatMap((x) => (x.k === 'event' ? [x.rec] : [])) };
}

describe('locality and ownership in files', () => {
  it('round-trip through a saved session, and an event without them reads without them', async () => {
    const live = liveRecords();
    expect(live[0]?.event).toMatchObject({
      locality: 'REMOTE',
      ownership: 'tier-2',
      session_id_count: 1,
    });
    expect(live[1]?.event).toMatchObject({ locality: 'LOCAL' });
    expect(live[1]?.event).not.toHaveProperty('ownership');
    expect(live[2]?.event).not.toHaveProperty('locality');
    const lines = [header, ...live.map((rec) => encodeRecord({ k: 'event', rec }))];
    expect(lines.join('\n')).not.toContain('sess-secret');
    // A line without them is the line older versions wrote: no new keys appear.
    expect(lines[3]).not.toContain('locality');
    const { res, events } = await readBack(lines, readSession);
    expect(res.problems).toEqual([]);
    expect(events).toEqual(live);
  });

  it('leaves out a locality or ownership that is not a label, keeping the event', async () => {
    const [rec] = liveRecords();
    const line = encodeRecord({ k: 'event', rec: rec! })
      .replace('"REMOTE"', '{"node":"rack-7"}')
      .replace('"tier-2"', '"a sentence with spaces"');
    const { res, events } = await readBack([header, line], readSession);
    expect(res.problems).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]?.event).not.toHaveProperty('locality');
    expect(events[0]?.event).not.toHaveProperty('ownership');
    expect(events[0]?.event).toMatchObject({ block_hashes: ['7', '18446744073709551615'] });
  });

  it('print in capture --json under their wire names and import back from that capture', async () => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk);
        done();
      },
    });
    const out = new LineOutput(sink);
    const w = new EventJsonWriter(out);
    const live = liveRecords();
    for (const r of live) w.write(r);
    out.endLine();
    await out.end();
    const text = Buffer.concat(chunks).toString('utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toContain(
      '"session_id_count":1,"locality":"REMOTE","ownership":"tier-2","seq":4',
    );
    expect(lines[1]).toContain('"group_idx":null,"locality":"LOCAL","seq":4');
    expect(lines[2]).not.toMatch(/locality|ownership/);
    const { res, events } = await readBack(lines, importSeedCapture);
    expect(res.problems).toEqual([]);
    expect(events.map((e) => e.event)).toEqual(live.map((e) => e.event));
  });
});
