// The event log of an opened session: its newest events, kept as the lines read (event-line.ts),
// are the rows a model fed the same records one by one keeps.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../shared/events';
import { CacheModel } from '../../electron/model/cache-model';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { loadIntoModel, replayFile } from '../../electron/session/load';
import { removed, stored } from '../model/helpers';

const RING = 40;

/** A session of `batches` two-event batches, with a duplicate batch, a bad line and a bad time. */
function sessionBytes(batches: number): Buffer {
  const header = makeHeader('test', new Date(Date.UTC(2026, 0, 1)), [
    { id: 'a', name: 'a', endpoint: '' },
  ]);
  const lines = [JSON.stringify(header)];
  const events: EventRecord[] = [];
  for (let i = 0; i < batches; i += 1) {
    const ts = 1000 + i;
    const pair = [stored('a', ts, [`${i}1`, `${i}2`], `${i}0`), removed('a', ts, [`${i}1`])];
    pair.forEach((r, idx) => events.push({ ...r, seq: i, idx }));
  }
  for (const [n, rec] of events.entries()) {
    lines.push(encodeRecord({ k: 'event', rec }));
    if (n === 10) lines.push('{not json');
    // Batch 7 again: a duplicate, counted and not applied (nor logged).
    if (n === 20) lines.push(encodeRecord({ k: 'event', rec: events[14] as EventRecord }));
  }
  lines.push(
    encodeRecord({
      k: 'event',
      rec: { ...(events[0] as EventRecord), seq: batches, ts: Number.NaN },
    }),
  );
  return gzipSync(`${lines.join('\n')}\n`);
}

/** The event log of a model fed the file's records one by one, as live. */
async function liveLog(file: Buffer): Promise<CacheModel> {
  const model = new CacheModel({ ringSize: RING });
  await replayFile(file, (r) => model.apply(r));
  return model;
}

describe('the event log of an opened session', () => {
  it('holds the newest events with their arrival numbers, as a model fed live', async () => {
    const file = sessionBytes(100);
    const opened = await loadIntoModel(file, { modelOptions: { ringSize: RING } });
    const live = await liveLog(file);
    const q = { limit: 1000, offset: 0 };
    const got = opened.model.events(q);
    expect(got.total).toBe(RING);
    expect(got.newest).toBe(199);
    expect(got.rows[0]?.n).toBe(199);
    expect(got.rows[0]?.seq).toBe(99);
    expect(got).toEqual(live.events(q));
    // Filters and snapshots read the same rows too.
    const removals = { ...q, types: ['BlockRemoved' as const], upTo: 190 };
    expect(opened.model.events(removals)).toEqual(live.events(removals));
  });

  it('holds every event of a session shorter than the log', async () => {
    const file = sessionBytes(12);
    const opened = await loadIntoModel(file, { modelOptions: { ringSize: RING } });
    const got = opened.model.events({ limit: 1000, offset: 0 });
    // 24 events, one of them a duplicate line that was skipped.
    expect(got.total).toBe(24);
    expect(got.rows.at(-1)?.n).toBe(0);
    expect(got).toEqual((await liveLog(file)).events({ limit: 1000, offset: 0 }));
  });

  it('shows only the known fields of a line that carries more (the ring keeps the line read)', async () => {
    const header = makeHeader('test', new Date(Date.UTC(2026, 0, 1)), []);
    const rec = stored('a', 1000, ['71', '72'], '70');
    const line = encodeRecord({ k: 'event', rec }).replace(
      '"block_hashes"',
      '"token_ids":[101,102,103],"prompt":"secret words","block_hashes"',
    );
    const file = gzipSync(`${JSON.stringify(header)}\n${line}\n`);
    const opened = await loadIntoModel(file);
    const page = opened.model.events({ offset: 0, limit: 10, hash: '72' });
    expect(page.rows).toEqual([{ ...rec, n: 0, chartTs: rec.ts }]);
    expect(JSON.stringify(page)).not.toMatch(/token_ids|secret/);
  });
});
