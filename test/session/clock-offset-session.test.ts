// A source's clock offset, measured live, goes into the recording as a source line (clockOffset),
// so the session reopened charts its batches where live did, the Insights' re-stores over time as
// well as the Overview's rates; a hostile offset is a bad line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LiveSession } from '../../electron/service/live-session';
import { analyzeCached } from '../../electron/session/cached-open';
import { loadIntoModel } from '../../electron/session/load';
import { batch, removed, stored } from '../model/helpers';

const T0 = 1_767_225_600;
let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-clock-offset-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a session with a source whose clock is 30 s behind', () => {
  it('reopens charted as live: b on the same seconds as a, its events at their own ts', async () => {
    const live = await LiveSession.start(join(dir, 'recordings'));
    live.addSource({ id: 'a', name: 'alpha', endpoint: 'tcp://a:5557' });
    live.addSource({ id: 'b', name: 'beta', endpoint: 'tcp://b:5557' });
    for (let s = 0; s < 20; s += 1) {
      live.sink.record(batch([stored('a', T0 + s, [`${1000 + s}`])]));
      // As a source says it: before the first batch it measured it from.
      if (s === 0) live.sink.clockOffset?.('b', 30);
      live.sink.record(batch([stored('b', T0 + s - 30, [`${2000 + s}`, `${3000 + s}`])]));
    }
    const file = join(dir, 'saved.kvscope.jsonl.gz');
    await live.saveAs(file);
    const liveSeries = live.model.series({ rangeSec: null, maxPoints: 600 });
    expect(liveSeries.points).toHaveLength(20);
    expect(liveSeries.points.at(-1)?.storedBy).toEqual([1, 2]);
    await live.close();
    const opened = await loadIntoModel(file);
    expect(opened.problems).toEqual([]);
    expect(opened.header?.sources.map((s) => s.name)).toEqual(['alpha', 'beta']);
    expect(opened.model.series({ rangeSec: null, maxPoints: 600 })).toEqual(liveSeries);
    expect(opened.model.events({ source: 'b', offset: 0, limit: 1 }).rows[0]?.ts).toBe(T0 - 11);
  });

  it('reads a clockOffset that is not whole seconds in range as a bad line, the rest read', async () => {
    const lines = [
      '{"format":"kvscope-session","version":2,"app":"t","startedAt":"2026-01-01T00:00:00.000Z","sources":[{"id":"a","name":"a","endpoint":""}]}',
      '{"k":"source","id":"a","name":"a","endpoint":"","clockOffset":1e300}',
      '{"k":"source","id":"a","name":"a","endpoint":"","clockOffset":"30"}',
      `{"k":"event","source":"a","seq":0,"ts":${T0},"idx":0,"event":{"type":"BlockStored","block_hashes":["1"],"block_size":16,"token_count":16}}`,
    ];
    const file = join(dir, 'hostile.kvscope.jsonl.gz');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, gzipSync(`${lines.join('\n')}\n`));
    const opened = await loadIntoModel(file);
    expect(opened.events).toBe(1);
    expect(opened.problems.join('\n')).toMatch(/clockOffset 1e\+300 is not whole seconds/);
    expect(opened.problems.join('\n')).toMatch(/clockOffset "30" is not whole seconds/);
    expect(opened.model.series({ rangeSec: null, maxPoints: 600 }).points[0]?.t).toBe(T0);
  });

  it("puts the re-stores of a source stamping time since its start on the others' seconds", async () => {
    const live = await LiveSession.start(join(dir, 'recordings'));
    live.addSource({ id: 'a', name: 'alpha', endpoint: 'tcp://a:5557' });
    live.addSource({ id: 'b', name: 'since-start', endpoint: 'tcp://b:5557' });
    // Each second from the second on, each source evicts its block and stores it again.
    const turn = (source: string, ts: number, s: number) =>
      live.sink.record(
        batch(
          s === 0
            ? [stored(source, ts, [`${source}1`])]
            : [removed(source, ts, [`${source}1`]), stored(source, ts, [`${source}1`])],
        ),
      );
    for (let s = 0; s < 20; s += 1) {
      turn('a', T0 + s, s);
      if (s === 0) live.sink.clockOffset?.('b', T0 - 5);
      turn('b', 5 + s, s);
    }
    const series = live.analysis.report().restoreSeries;
    // One bin a second from the first re-store, two re-stores in each: no pile in the first bin
    // (b's times are before a's), no span from 1970.
    expect(series.startS).toBe(T0 + 1);
    expect(series.binS).toBe(1);
    expect(series.restores).toEqual(Array.from({ length: 19 }, () => 2));
    expect(live.analysis.report().totals.restores).toBe(38);
    const file = join(dir, 'since-start.kvscope.jsonl.gz');
    await live.saveAs(file);
    await live.close();
    expect((await loadIntoModel(file)).analysis.report().restoreSeries).toEqual(series);
    // `kvscope analyze`: the analysis alone, from the file.
    expect((await analyzeCached(file)).analysis.report().restoreSeries).toEqual(series);
  });
});
