import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { loadIntoModel } from '../../electron/session/load';
import { NotASessionError, readSession } from '../../electron/session/read-session';
import { Recording } from '../../electron/session/recording';
import { batch, cleared, removed, stored } from '../model/helpers';
import { eventually } from '../support/wait-for';

let dir = '';
const open: Recording[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-session-'));
});
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
  await rm(dir, { recursive: true, force: true });
});

async function newRecording(): Promise<Recording> {
  const r = await Recording.create({
    dir,
    app: '0.1.0',
    sources: [{ id: 'a', name: 'engine A', endpoint: 'tcp://127.0.0.1:5557' }],
  });
  open.push(r);
  return r;
}

/** Feed the same workload to a recording and to a model. */
function workload(rec: Recording, model: CacheModel): void {
  const big = '18446744073709551615';
  const batches = [
    [stored('a', 100, [big, '9007199254740993', '3']), stored('a', 100, ['4'], '3', 'CPU')],
    [removed('a', 101, ['3', '8888'])],
    [stored('b', 102, ['5', '6'])],
    [cleared('b', 103)],
    [stored('a', 104, ['3'], '9007199254740993')],
  ];
  for (const b of batches) {
    rec.record(batch(b));
    model.apply(batch(b));
  }
  const gap = { source: 'a', from: 7, to: 9, recovered: 1, lost: 2, at: 102, since: 101 };
  rec.record({ k: 'gap', rec: gap });
  model.apply({ k: 'gap', rec: gap });
  const reset = { source: 'b', previousSeq: 40, at: 103 };
  rec.record({ k: 'reset', rec: reset });
  model.apply({ k: 'reset', rec: reset });
  const und = { source: 'a', seq: 12, bytes: 33, error: 'DecodeError: bad', at: 104 };
  rec.record({ k: 'undecoded', rec: und });
  model.apply({ k: 'undecoded', rec: und });
  rec.record({ k: 'event-error', rec: { source: 'a', seq: 12, idx: 1, error: 'bad event' } });
  rec.addSource({ id: 'b', name: 'engine B', endpoint: 'tcp://127.0.0.1:5558' });
}

describe('session files', () => {
  it('round-trips a recording through Save As into identical kpis, series and chains', async () => {
    const rec = await newRecording();
    const live = new CacheModel();
    workload(rec, live);
    const target = join(dir, 'saved.kvscope.jsonl.gz');
    await rec.saveAs(target);
    const progress: number[] = [];
    const loaded = await loadIntoModel(target, { onProgress: (f) => progress.push(f) });
    expect(loaded.kind).toBe('session');
    expect(loaded.problems).toEqual([]);
    expect(loaded.model.kpis()).toEqual(live.kpis());
    expect(loaded.model.series({ rangeSec: null })).toEqual(live.series({ rangeSec: null }));
    const q = { sort: 'depth' as const, desc: true, offset: 0, limit: 50 };
    expect(loaded.model.chains(q)).toEqual(live.chains(q));
    expect(loaded.header?.sources.map((s) => s.id)).toEqual(['a', 'b']);
    expect(loaded.model.search('18446744073709551615')[0]?.hash).toBe('18446744073709551615');
    expect(progress.at(-1)).toBe(1);
    // Records appended after a save still land in the recording.
    rec.record(batch([stored('a', 105, ['77'])]));
    await rec.close();
    const again = await loadIntoModel(rec.path);
    expect(again.problems).toEqual([]);
    expect(again.model.kpis().storedBlocks).toBe(live.kpis().storedBlocks + 1);
  });

  it('writes a source again when its connection is edited to another endpoint under the same name', async () => {
    const rec = await newRecording();
    rec.addSource({ id: 'e', name: 'engine', endpoint: 'tcp://10.0.0.1:5557' });
    rec.setClockOffset('e', 30);
    rec.record(batch([stored('e', 100, ['1'])]));
    rec.addSource({ id: 'e', name: 'engine', endpoint: 'tcp://10.0.0.2:5557' });
    rec.record(batch([stored('e', 101, ['2'])]));
    await rec.close();
    const lines = gunzipSync(await readFile(rec.path))
      .toString()
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { k?: string; id?: string; endpoint?: string; clockOffset?: number },
      );
    const said = lines.filter((l) => l.k === 'source' && l.id === 'e');
    // The last line of the source names the endpoint it reads now, its offset kept until measured.
    expect(said.at(-1)).toMatchObject({ endpoint: 'tcp://10.0.0.2:5557', clockOffset: 30 });
    const loaded = await loadIntoModel(rec.path);
    expect(loaded.header?.sources.find((x) => x.id === 'e')?.endpoint).toBe('tcp://10.0.0.2:5557');
  });

  it('reads a recording still being written: everything flushed is there, the open end is reported', async () => {
    const rec = await newRecording();
    const live = new CacheModel();
    workload(rec, live);
    await rec.flush();
    const loaded = await loadIntoModel(rec.path);
    expect(loaded.model.kpis()).toEqual(live.kpis());
    expect(loaded.problems).toEqual([
      'file ends early (truncated gzip): read 6 events up to there',
    ]);
  });

  it('flushes appended records to disk by itself within the flush interval', async () => {
    const rec = await Recording.create({ dir, app: 't', flushIntervalMs: 20 });
    open.push(rec);
    rec.record(batch([stored('a', 1, ['1', '2', '3'])]));
    // Wait for the signal: the file on disk holds the event (no explicit flush is called).
    const events = await eventually(
      async () => (await loadIntoModel(rec.path)).events,
      (n) => n > 0,
      'the event on disk',
      10_000,
    );
    expect(events).toBe(1);
  });

  it('saves atomically: the target is replaced whole and no temp file is left', async () => {
    const rec = await newRecording();
    workload(rec, new CacheModel());
    const target = join(dir, 'out.kvscope.jsonl.gz');
    await writeFile(target, 'old content that is not a session');
    await rec.saveAs(target);
    const text = gunzipSync(await readFile(target)).toString();
    expect(text.split('\n')[0]).toContain('"format":"kvscope-session"');
    expect(text.trimEnd().split('\n')).toHaveLength(1 + 6 + 4 + 1);
    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('loads the valid part of a truncated gzip file and says where it ended', async () => {
    const lines = [JSON.stringify(makeHeader('t', new Date(0), []))];
    for (let i = 0; i < 2000; i += 1)
      lines.push(encodeRecord({ k: 'event', rec: stored('a', 10 + i / 100, [`${i}`]) }));
    const whole = gzipSync(lines.join('\n') + '\n');
    const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
    const loaded = await loadIntoModel(cut);
    const events = loaded.events;
    expect(events).toBeGreaterThan(100);
    expect(events).toBeLessThan(2000);
    expect(loaded.model.kpis().storedBlocks).toBe(events);
    expect(loaded.problems[0]).toBe(
      `file ends early (truncated gzip): read ${events} events up to there`,
    );
  });

  it('skips corrupt lines of a plain .jsonl session, keeps the rest and lists each problem', async () => {
    const lines = [
      JSON.stringify(makeHeader('t', new Date(0), [])),
      encodeRecord({ k: 'event', rec: stored('a', 1, ['1', '2']) }),
      '{"k":"event", this is not json',
      JSON.stringify({
        k: 'event',
        source: 'a',
        seq: 3,
        ts: 2,
        event: { type: 'BlockStored', block_hashes: [5] },
      }),
      JSON.stringify({ k: 'mystery' }),
      encodeRecord({ k: 'event', rec: removed('a', 3, ['1']) }),
      '{"k":"event","source":"a"', // cut off
    ];
    const file = join(dir, 'plain.jsonl');
    await writeFile(file, lines.join('\n'));
    const loaded = await loadIntoModel(file);
    expect(loaded.model.kpis()).toMatchObject({
      storedBlocks: 2,
      removedBlocks: 1,
      residentBlocks: 1,
    });
    expect(loaded.problems).toEqual([
      'line 3: not JSON (skipped)',
      'line 4: BlockStored without a list of string hashes (skipped)',
      'line 5: unknown record kind "mystery" (skipped)',
      'line 7: cut off at the end of the file (skipped)',
    ]);
  });

  it('takes a source out where a source line marks it removed; a removedAt that is no time is skipped with why', async () => {
    const a = { id: 'a', name: 'engine A', endpoint: 'tcp://127.0.0.1:1' };
    const b = { id: 'b', name: 'engine B', endpoint: 'tcp://127.0.0.1:2' };
    const lines = [
      JSON.stringify(makeHeader('t', new Date(0), [a, b])),
      encodeRecord({ k: 'event', rec: { ...stored('a', 1, ['1', '2']), seq: 1 } }),
      encodeRecord({ k: 'event', rec: { ...stored('b', 2, ['3']), seq: 1 } }),
      encodeRecord({ k: 'source', rec: { ...b, removedAt: 5 } }),
      JSON.stringify({ k: 'source', ...a, removedAt: 'soon' }),
      encodeRecord({ k: 'event', rec: { ...stored('a', 6, ['4'], '2'), seq: 2 } }),
    ];
    const loaded = await loadIntoModel(gzipSync(`${lines.join('\n')}\n`));
    expect(loaded.model.sources()).toEqual(['a']);
    expect(loaded.model.kpis()).toMatchObject({ storedBlocks: 3, residentBlocks: 3 });
    expect(loaded.analysis.report().sources.map((s) => s.source)).toEqual(['a']);
    expect(loaded.header?.sources).toEqual([a, { ...b, removedAt: 5 }]);
    expect(loaded.problems).toEqual([
      'line 5: source removedAt "soon" is not a time in seconds (skipped)',
    ]);
  });

  it('refuses a file whose first line is not a session header', async () => {
    const buf = Buffer.from('{"hello": 1}\n');
    await expect(readSession(buf, () => undefined)).rejects.toThrow(NotASessionError);
    await expect(readSession(buf, () => undefined)).rejects.toThrow(
      'not a KV Scope session: first line is not a header',
    );
    await expect(loadIntoModel(buf, { kind: 'session' })).rejects.toThrow(NotASessionError);
  });

  it("reads on past a damaged header line when the lines after it are a session's (nothing good lost)", async () => {
    const events = [0, 1, 2].map((i) =>
      encodeRecord({ k: 'event', rec: { ...stored('a', i, [`${i + 1}`]), seq: i } }),
    );
    const source = encodeRecord({ k: 'source', rec: { id: 'a', name: 'engine A', endpoint: '' } });
    const header = JSON.stringify(makeHeader('test', new Date(0), []));
    for (const first of [header.slice(0, 20), 'garbage', '[[[]]]', '{"hello": 1}']) {
      const loaded = await loadIntoModel(gzipSync(`${[first, source, ...events].join('\n')}\n`));
      expect(loaded.model.kpis()).toMatchObject({ storedBlocks: 3, residentBlocks: 3 });
      expect(loaded.problems).toHaveLength(1);
      expect(loaded.problems[0]).toMatch(/^line 1: the session header is unreadable/);
    }
    // A capture whose first line is damaged still reads as a capture; a lone bad line is refused.
    await expect(loadIntoModel(Buffer.from('garbage\n'))).rejects.toThrow(
      'no events could be read',
    );
    await expect(
      loadIntoModel(Buffer.from(`garbage\nnot json either\n${source}\n`)),
    ).rejects.toThrow('no events could be read');
  });

  it('says a session whose header is not its first line is out of order (it read as a capture)', async () => {
    const header = JSON.stringify(makeHeader('test', new Date(0), []));
    const events = [0, 1, 2].map((i) =>
      encodeRecord({ k: 'event', rec: { ...stored('a', i, [`${i + 1}`]), seq: i } }),
    );
    const source = encodeRecord({ k: 'source', rec: { id: 'a', name: 'a', endpoint: '' } });
    for (const [lines, kind] of [
      [[source, ...events, header], 'source'],
      [[...events.reverse(), header], 'event'],
    ] as const) {
      const file = gzipSync(`${lines.join('\n')}\n`);
      await expect(loadIntoModel(file)).rejects.toThrow(
        `not a KV Scope session: its first line is a session's ${kind} line, not its header: a session starts with its header (are its lines out of order?)`,
      );
    }
  });
});
