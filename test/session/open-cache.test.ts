// The open cache (open-cache.ts, cached-open.ts): a file opened again reads back the state its
// first open built, with every figure the replay gives; a file that changed, another build,
// another way of opening it, a cut or foreign entry and a stream all replay.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { analyzeCached, openCached } from '../../electron/session/cached-open';
import { encodeRecord } from '../../electron/session/format';
import { loadIntoModel, type LoadResult } from '../../electron/session/load';
import { OpenCache } from '../../electron/session/open-cache';
import { simSessionBytes } from '../support/sim-session';
import { eventually } from '../support/wait-for';
import { readState, writeState } from '../../electron/session/state-snapshot';

let dir = '';
let file = '';
let cache: OpenCache;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-open-cache-'));
  file = join(dir, 'a.kvscope.jsonl.gz');
  await writeFile(file, simSessionBytes(600));
  cache = new OpenCache({ dir: join(dir, 'cache'), codeId: 'test-build' });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the screens and the Insights read of an open. */
function figures(r: LoadResult): unknown {
  const { model, analysis } = r;
  const chains = model.chains({ sort: 'restores', desc: true, offset: 0, limit: 50 });
  const first = chains.rows[0]?.id;
  return {
    file: [r.kind, r.header, r.problems, r.events, r.skippedLines, r.duplicateLines],
    kpis: model.kpis(),
    chains,
    chain: first === undefined ? null : model.chain(first),
    // The event log holds the file's lines: read back through the reader the open sets again.
    events: model.events({ offset: 0, limit: 200 }),
    stored: model.events({ types: ['BlockStored'], source: 'engine#1', offset: 10, limit: 20 }),
    series: model.series({ rangeSec: null }),
    search: model.search('12'),
    report: analysis.report(),
  };
}

async function entries(): Promise<string[]> {
  return (await readdir(cache.dir).catch(() => [])).filter((n) => n.endsWith('.state.br'));
}

/** Where two states read back differ (paths), typed arrays compared by their bytes. */
function differences(a: unknown, b: unknown, path = 'state', seen = new Set<unknown>()): string[] {
  if (Object.is(a, b)) return [];
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return [path];
  if (seen.has(a)) return [];
  seen.add(a);
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    const bytes = (v: unknown): Buffer | null =>
      ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : null;
    const x = bytes(a);
    const y = bytes(b);
    return x !== null && y !== null && x.equals(y) ? [] : [path];
  }
  const entries = (v: object): [unknown, unknown][] =>
    v instanceof Map || v instanceof Set ? [...v.entries()] : Object.entries(v);
  const x = entries(a);
  const y = entries(b);
  if (x.length !== y.length || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return [path];
  return x.flatMap(([k, v], i) => {
    const [yk, yv] = y[i] ?? [];
    const key = Object.is(k, yk) ? [] : [`${path} key ${String(k)}`];
    return [...key, ...differences(v, yv, `${path}.${String(k)}`, seen)];
  });
}

describe('opening a file through the open cache', () => {
  it('reads the state of its first open back the second time, every figure as the replay gives it', async () => {
    const first = await openCached(file, { cache });
    expect(first.restored).toBe(false);
    await first.kept;
    expect(await entries()).toHaveLength(1);
    const progress: number[] = [];
    const second = await openCached(file, { cache, onProgress: (f) => progress.push(f) });
    expect(second.restored).toBe(true);
    // Said after the digest and after the entry's read: a cancel is heard there.
    expect(progress).toEqual([0, 0.5, 1]);
    const replayed = await loadIntoModel(file);
    expect(replayed.events).toBeGreaterThan(1000);
    expect(figures(second)).toEqual(figures(replayed));
    expect(second.model.kpis().residentBlocks).toBeGreaterThan(0);
  });

  it('stops a read-back open where a cancel is heard: after the digest, or after the entry is read', async () => {
    await (
      await openCached(file, { cache })
    ).kept;
    class Stop extends Error {}
    for (const at of [0, 0.5]) {
      const heard: number[] = [];
      const opening = openCached(file, {
        cache,
        onProgress: (f) => {
          heard.push(f);
          if (f === at) throw new Stop();
        },
      });
      await expect(opening).rejects.toBeInstanceOf(Stop);
      expect(heard.at(-1)).toBe(at);
    }
    // The entry is untouched by a cancel.
    expect((await openCached(file, { cache })).restored).toBe(true);
  });

  it('hears a cancel pressed while the first open wrote its state, and keeps that state', async () => {
    // The open's last progress comes once the state is written (its write holds the thread): a
    // cancel pressed meanwhile is heard there. Counted on an open without a cache first.
    let plain = 0;
    await openCached(file, { onProgress: (f) => void (f === 1 && (plain += 1)) });
    class Stop extends Error {}
    let ones = 0;
    const opening = openCached(file, {
      cache,
      onProgress: (f) => {
        if (f === 1 && ++ones === plain + 1) throw new Stop();
      },
    });
    await expect(opening).rejects.toBeInstanceOf(Stop);
    await eventually(entries, (e) => e.length === 1, 'the state kept');
    expect((await openCached(file, { cache })).restored).toBe(true);
  });

  it('writes no stale memory into a state: the same file, whatever memory held before', async () => {
    // Stale memory stood in for by Buffer.allocUnsafe's bytes, another fill each time.
    const built = async (stale: number): Promise<unknown> => {
      const spy = vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((n) => Buffer.alloc(n, stale));
      try {
        const r = await loadIntoModel(file);
        return readState(writeState({ model: r.model, analysis: r.analysis }).toBuffer());
      } finally {
        spy.mockRestore();
      }
    };
    // Compared as read back, every typed array's bytes whole, not as the state's bytes: V8 writes
    // a number as an int or a double by how it is held, which the JIT may change between opens.
    expect(differences(await built(0xab), await built(0xcd))).toEqual([]);
  });

  it('replays a file whose bytes changed since, and keeps that state beside', async () => {
    await (
      await openCached(file, { cache })
    ).kept;
    await writeFile(file, simSessionBytes(600, 8));
    const changed = await openCached(file, { cache });
    expect(changed.restored).toBe(false);
    expect(figures(changed)).toEqual(figures(await loadIntoModel(file)));
    await changed.kept;
    expect(await entries()).toHaveLength(2);
  });

  it('reads no entry of another build, or of the file opened another way', async () => {
    expect(await (await openCached(file, { cache })).kept).toBeNull();
    const other = new OpenCache({ dir: cache.dir, codeId: 'another-build' });
    const otherBuild = await openCached(file, { cache: other });
    expect(otherBuild.restored).toBe(false);
    // Said to be a session (not found out): another way of opening it.
    const asked = await openCached(file, { cache, kind: 'session' });
    expect(asked.restored).toBe(false);
    expect((await openCached(file, { cache })).restored).toBe(true);
    await Promise.all([otherBuild.kept, asked.kept]);
    expect(await entries()).toHaveLength(3);
  });

  it('reads no entry of the file analysed for another KV cache group (serve --group)', async () => {
    expect(await (await openCached(file, { cache })).kept).toBeNull();
    const groupOne = await openCached(file, { cache, analysisOptions: { group: 1 } });
    expect(groupOne.restored).toBe(false);
    // The file's events are all group 0's: group 1 alone applies none of them.
    const report = groupOne.analysis.report();
    expect(report.group).toBe(1);
    expect(report.totals.newStores).toBe(0);
    expect(await groupOne.kept).toBeNull();
    const again = await openCached(file, { cache, analysisOptions: { group: 1 } });
    expect(again.restored).toBe(true);
    expect(again.analysis.report()).toEqual(report);
    const all = await openCached(file, { cache });
    expect(all.restored).toBe(true);
    expect(all.analysis.report().group).toBeNull();
    expect(all.analysis.report().totals.newStores).toBeGreaterThan(1000);
  });

  it('reads a session back under any name, a capture only under its own (its sources bear it)', async () => {
    await (
      await openCached(file, { cache, captureSource: 'a.gz' })
    ).kept;
    expect((await openCached(file, { cache, captureSource: 'renamed.gz' })).restored).toBe(true);
    const capture = join(dir, 'cap.jsonl');
    await writeFile(
      capture,
      `${JSON.stringify({ ts: 5, type: 'BlockStored', block_hashes: [1, 2] })}\n`,
    );
    const asCap = await openCached(capture, { cache, captureSource: 'cap.jsonl' });
    expect(asCap.kind).toBe('capture');
    await asCap.kept;
    const again = await openCached(capture, { cache, captureSource: 'cap.jsonl' });
    expect(again.restored).toBe(true);
    expect(again.model.sources()).toEqual(asCap.model.sources());
    const renamed = await openCached(capture, { cache, captureSource: 'other.jsonl' });
    expect(renamed.restored).toBe(false);
    await renamed.kept;
  });

  it('reads a file once on its first open: no entry is of its size, its read takes the digest', async () => {
    const digests = vi.spyOn(cache, 'digestOf');
    const first = await openCached(file, { cache });
    expect(first.restored).toBe(false);
    expect(await first.kept).toBeNull();
    expect(digests).not.toHaveBeenCalled();
    // Found again under the digest taken first this time (an entry is of its size now).
    const second = await openCached(file, { cache });
    expect(second.restored).toBe(true);
    expect(digests).toHaveBeenCalledTimes(1);
    digests.mockClear();
    // `kvscope analyze` likewise.
    const analyzed = await analyzeCached(file, { cache });
    expect(analyzed.restored).toBe(false);
    expect(await analyzed.kept).toBeNull();
    expect(digests).toHaveBeenCalledTimes(1);
    expect((await analyzeCached(file, { cache })).restored).toBe(true);
  });

  it('takes the digest first where an entry is of a file of the same size, and keeps each its own', async () => {
    // Plain text: the second file differs from the first in one digit of its header's time.
    const text = gunzipSync(await readFile(file)).toString('utf8');
    const twin = text.replace(
      /"startedAt":"(\d)/,
      (_, d: string) => `"startedAt":"${d === '1' ? '2' : '1'}`,
    );
    expect(twin).not.toBe(text);
    const [a, b] = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl')];
    await writeFile(a, text);
    await writeFile(b, twin);
    expect((await stat(a)).size).toBe((await stat(b)).size);
    expect(await (await openCached(a, { cache })).kept).toBeNull();
    const digests = vi.spyOn(cache, 'digestOf');
    const other = await openCached(b, { cache });
    expect(other.restored).toBe(false);
    expect(digests).toHaveBeenCalledTimes(1);
    expect(await other.kept).toBeNull();
    expect(figures(other)).toEqual(figures(await loadIntoModel(b)));
    expect((await openCached(a, { cache })).restored).toBe(true);
    expect((await openCached(b, { cache })).restored).toBe(true);
  });

  it('keeps a capture larger than one read (read as a session first, in part), under its digest', async () => {
    const capture = join(dir, 'big-cap.jsonl');
    const line = (i: number): string =>
      JSON.stringify({ ts: 5 + i, type: 'BlockStored', block_hashes: [2 * i + 1, 2 * i + 2] });
    await writeFile(capture, `${Array.from({ length: 8000 }, (_, i) => line(i)).join('\n')}\n`);
    expect((await stat(capture)).size).toBeGreaterThan(256 * 1024);
    const first = await openCached(capture, { cache, captureSource: 'big-cap.jsonl' });
    expect(first.kind).toBe('capture');
    expect(await first.kept).toBeNull();
    const again = await openCached(capture, { cache, captureSource: 'big-cap.jsonl' });
    expect(again.restored).toBe(true);
    expect(again.model.kpis()).toEqual(first.model.kpis());
  });

  it("reads no entry found under another file's key (a copy, a mix-up), and replays", async () => {
    await (
      await openCached(file, { cache })
    ).kept;
    const [entry] = await entries();
    const other = join(dir, 'b.kvscope.jsonl.gz');
    await writeFile(other, simSessionBytes(300, 9));
    await (
      await openCached(other, { cache })
    ).kept;
    const theirs = (await entries()).find((n) => n !== entry) as string;
    // b's entry replaced by a's.
    await writeFile(join(cache.dir, theirs), await readFile(join(cache.dir, entry as string)));
    const r = await openCached(other, { cache });
    expect(r.restored).toBe(false);
    expect(figures(r)).toEqual(figures(await loadIntoModel(other)));
    // Kept again, rightly this time (and before the folder is removed).
    expect(await r.kept).toBeNull();
  });

  it('removes an entry cut short or not a state, replays the file and keeps it again', async () => {
    await (
      await openCached(file, { cache })
    ).kept;
    const [name] = await entries();
    const entry = join(cache.dir, name as string);
    const whole = await readFile(entry);
    await writeFile(entry, whole.subarray(0, whole.length >> 1));
    const cut = await openCached(file, { cache });
    expect(cut.restored).toBe(false);
    await cut.kept;
    expect((await openCached(file, { cache })).restored).toBe(true);
    // It decompresses, but holds no state of ours.
    await writeFile(entry, brotliCompressSync(Buffer.from('{"k":"not a state"}')));
    const foreign = await openCached(file, { cache });
    expect(foreign.restored).toBe(false);
    expect(figures(foreign)).toEqual(figures(await loadIntoModel(file)));
    await foreign.kept;
    expect(brotliDecompressSync((await readFile(entry)).subarray(8)).length).toBeGreaterThan(1000);
    // Whole, but it says it is longer than it is.
    const kept = await readFile(entry);
    kept.writeBigUInt64LE(kept.readBigUInt64LE(0) + 1n);
    await writeFile(entry, kept);
    const long = await openCached(file, { cache });
    expect(long.restored).toBe(false);
    await long.kept;
    expect((await openCached(file, { cache })).restored).toBe(true);
  });

  it("keeps nothing of a file written to while it was read (its state would not be its key's)", async () => {
    let appended = false;
    const r = await openCached(file, {
      cache,
      onProgress: () => {
        if (appended) return;
        appended = true;
        appendFileSync(file, gzipSync('\n'));
      },
    });
    expect(appended).toBe(true);
    expect(r.restored).toBe(false);
    await r.kept;
    expect(await entries()).toEqual([]);
    // Left alone from now on, it is kept.
    await (
      await openCached(file, { cache })
    ).kept;
    expect(await entries()).toHaveLength(1);
  });

  it('keeps one whole entry when the same file is opened twice at once', async () => {
    const [a, b] = await Promise.all([openCached(file, { cache }), openCached(file, { cache })]);
    expect(await Promise.all([a.kept, b.kept])).toEqual([null, null]);
    expect(await readdir(cache.dir)).toHaveLength(1);
    expect((await openCached(file, { cache })).restored).toBe(true);
  });

  it('replays a stream and keeps nothing (its bytes cannot be read twice)', async () => {
    const r = await openCached(Readable.from([await readFile(file)]), { cache, kind: 'session' });
    expect(r.restored).toBe(false);
    expect(r.kept).toBeNull();
    expect(await entries()).toEqual([]);
  });

  it('opens a file it cannot keep (a cache folder that cannot be made) as without one', async () => {
    await writeFile(join(dir, 'blocker'), 'a file where the folder would be');
    const blocked = new OpenCache({ dir: join(dir, 'blocker', 'cache'), codeId: 'test-build' });
    const r = await openCached(file, { cache: blocked });
    expect(await r.kept).toMatch(/^it could not be kept in .*blocker\/cache \(/);
    expect(figures(r)).toEqual(figures(await loadIntoModel(file)));
  });

  it('keeps nothing when the state changed while it was compressed (its arrays are not copied)', async () => {
    const r = await openCached(file, { cache });
    // Any of the state's numbers, changed before the background write is done.
    const arrays: Float64Array[] = [];
    const walk = (o: unknown, seen: Set<unknown>): void => {
      if (o === null || typeof o !== 'object' || seen.has(o)) return;
      seen.add(o);
      if (o instanceof Float64Array) arrays.push(o);
      else if (!ArrayBuffer.isView(o)) for (const v of Object.values(o)) walk(v, seen);
    };
    walk(r.model, new Set());
    const changed = arrays.find((a) => a.length > 0) as Float64Array;
    changed[0] = (changed[0] as number) + 1;
    expect(await r.kept).toBe('its state changed while it was kept');
    expect(await entries()).toEqual([]);
    expect(await readdir(cache.dir)).toEqual([]);
    expect((await openCached(file, { cache })).restored).toBe(false);
  });

  it('keeps the folder within its budget, removing the least recently used entries first', async () => {
    const small = new OpenCache({ dir: cache.dir, codeId: 'test-build', maxBytes: 2500 });
    // Random bytes: gzip leaves them at their size.
    const kept = { a: randomBytes(1000), b: randomBytes(1000), c: randomBytes(1000) };
    await small.write('a', [kept.a], { byteLength: 1000 });
    await small.write('b', [kept.b], { byteLength: 1000 });
    const sizes = await Promise.all(
      (await entries()).map(async (n) => (await stat(join(cache.dir, n))).size),
    );
    expect(sizes.every((s) => s > 900)).toBe(true);
    // a is used again (read marks it), so b is the least recently used when c comes.
    const old = new Date(Date.now() - 60_000);
    await utimes(join(cache.dir, 'a.state.br'), old, old);
    await utimes(join(cache.dir, 'b.state.br'), old, new Date(Date.now() - 30_000));
    expect(await small.read('a')).toEqual(kept.a);
    await small.write('c', [kept.c], { byteLength: 1000 });
    expect((await entries()).sort()).toEqual(['a.state.br', 'c.state.br']);
    expect(await small.read('b')).toBeNull();
    // What a killed write left is removed once it is an hour old, not before.
    const left = ['x.state.br.123.part', 'y.state.br.456.part'].map((n) => join(cache.dir, n));
    for (const f of left) await writeFile(f, 'half');
    const twoHoursAgo = new Date(Date.now() - 7200_000);
    await utimes(left[0] as string, twoHoursAgo, twoHoursAgo);
    await small.write('d', [kept.a], { byteLength: 1000 });
    const names = await readdir(cache.dir);
    expect(names).not.toContain('x.state.br.123.part');
    expect(names).toContain('y.state.br.456.part');
  });
});

describe('kvscope analyze through the open cache', () => {
  it('reads the analysis of its first run back, with the sources the file marks removed', async () => {
    const removedLine = encodeRecord({
      k: 'source',
      rec: { id: 'engine#1', name: 'engine 1', endpoint: '', removedAt: 1_767_225_700 },
    });
    const marked = Buffer.concat([await readFile(file), gzipSync(`${removedLine}\n`)]);
    await writeFile(file, marked);
    const opts = { cache, analysisOptions: { thrashWindowS: 30 } };
    const first = await analyzeCached(file, opts);
    expect(first.restored).toBe(false);
    await first.kept;
    const second = await analyzeCached(file, opts);
    expect(second.restored).toBe(true);
    expect(second.removed).toEqual(['engine#1']);
    expect(second.analysis.report()).toEqual(first.analysis.report());
    expect(second.analysis.report().sources.map((s) => s.source)).toEqual(['engine#0']);
    expect(second.problems).toEqual(first.problems);
    // Another thrash window is another analysis.
    const other = await analyzeCached(file, { cache, analysisOptions: { thrashWindowS: 60 } });
    expect(other.restored).toBe(false);
    expect(await other.kept).toBeNull();
  });
});
