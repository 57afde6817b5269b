// Lines the recording's full queue refuses leave a marker in the real file: once the queue takes
// lines again (or at close), one gap line per source over the seqs it refused, so a reopened file
// shows the loss as a gap instead of a stretch that looks quiet.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventRecord, GapRecord } from '../../shared/events';
import { EventLines } from '../../electron/session/event-line';
import type { SessionRecord } from '../../electron/session/format';
import { loadIntoModel } from '../../electron/session/load';
import { readSession } from '../../electron/session/read-session';
import { Recording } from '../../electron/session/recording';
import { stored } from '../model/helpers';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-refused-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Batch `seq` of source `source`: two stored events. */
function batchOf(source: string, seq: number): EventRecord[] {
  return [0, 1].map((idx) => ({
    ...stored(source, 1000 + seq, [`${seq + 1}${idx}1`, `${seq + 1}${idx}2`]),
    seq,
    idx,
  }));
}

/** Records batch `seq` of `source` the way the live session does (its lines encoded already). */
function recordBatch(rec: Recording, source: string, seq: number): void {
  const events = batchOf(source, seq);
  const lines = new EventLines();
  for (const e of events) lines.add(e);
  rec.record({ k: 'batch', meta: { source, seq, ts: 1000 + seq, dpRank: null }, events }, lines);
}

async function readBack(path: string): Promise<SessionRecord[]> {
  const out: SessionRecord[] = [];
  await readSession(path, (r) => out.push(r));
  return out;
}

/** Events of each seq of `source` in the file. */
function perSeq(records: SessionRecord[], source: string): Map<number, number> {
  const n = new Map<number, number>();
  for (const r of records)
    if (r.k === 'event' && r.rec.source === source) n.set(r.rec.seq, (n.get(r.rec.seq) ?? 0) + 1);
  return n;
}

describe('a recording whose queue refused lines', () => {
  it('marks the refused stretch with a gap per source once the queue takes lines again', async () => {
    // A queue that no flush empties during the burst: a few dozen lines fill it.
    const rec = await Recording.create({
      dir,
      app: 't',
      flushIntervalMs: 3_600_000,
      maxQueueBytes: 16 * 1024,
    });
    for (let seq = 0; seq < 300; seq++) {
      recordBatch(rec, 'a', seq);
      recordBatch(rec, 'b', seq);
    }
    const dropped = rec.status().droppedRecords;
    expect(dropped).toBeGreaterThan(0);
    await rec.flush();
    // The queue takes lines again: the marker goes in before this batch.
    recordBatch(rec, 'a', 300);
    await rec.close();
    expect(rec.status().droppedRecords).toBe(dropped);

    const records = await readBack(rec.path);
    const gaps = records.filter((r) => r.k === 'gap').map((r) => r.rec as GapRecord);
    expect(gaps.map((g) => g.source).sort()).toEqual(['a', 'b']);
    for (const g of gaps) {
      const inFile = perSeq(records, g.source);
      // Batches with an event refused (the first may have gone in in part).
      const missing = Array.from({ length: 300 }, (_, q) => q).filter(
        (q) => (inFile.get(q) ?? 0) < 2,
      );
      expect(g.from).toBe(missing[0]);
      expect(g.to).toBe(missing.at(-1));
      expect(g.lost).toBe(missing.length);
      expect(g.recovered).toBe(0);
    }
    // Every event is in the file or counted in a marker.
    const events = records.filter((r) => r.k === 'event').length;
    expect(events + dropped).toBe(2 * 2 * 300 + 2);
    // The marker sits before the batch that came after the stretch, and that batch is whole.
    const firstGap = records.findIndex((r) => r.k === 'gap');
    const after = records.findIndex((r) => r.k === 'event' && r.rec.seq === 300);
    expect(firstGap).toBeLessThan(after);
    // Opened, the file says so: two gaps, their batches lost.
    const opened = await loadIntoModel(rec.path);
    expect(opened.model.kpis().gaps).toBe(2);
  });

  it('writes the marker at close when nothing came after the refused stretch', async () => {
    const rec = await Recording.create({
      dir,
      app: 't',
      flushIntervalMs: 3_600_000,
      maxQueueBytes: 8 * 1024,
    });
    for (let seq = 0; seq < 200; seq++) recordBatch(rec, 'a', seq);
    expect(rec.status().droppedRecords).toBeGreaterThan(0);
    await rec.close();
    const records = await readBack(rec.path);
    const gaps = records.filter((r) => r.k === 'gap').map((r) => r.rec as GapRecord);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ source: 'a', to: 199, recovered: 0 });
    expect(records.at(-1)?.k).toBe('gap');
  });

  it('writes no marker when nothing was refused', async () => {
    const rec = await Recording.create({ dir, app: 't' });
    for (let seq = 0; seq < 50; seq++) recordBatch(rec, 'a', seq);
    await rec.close();
    expect((await readBack(rec.path)).filter((r) => r.k === 'gap')).toEqual([]);
  });
});
