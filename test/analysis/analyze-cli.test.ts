// `kvscope analyze` (the built CLI) on the vLLM fixtures, a session file and a generated capture
// of two data-parallel ranks: its JSON equals what the brute-force oracle computes from the
// same events, independently of electron/analysis.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCapacity } from '../../electron/cli/analyze-command';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import type { KvEvent } from '../../shared/events';
import { CLI, ensureBuilt, ROOT } from '../support/built-app';
import { HYBRID_INT, LEGACY_INT, readTruth, type TruthEvent } from '../support/fixture-frames';
import { removed, stored } from './helpers';
import { stored as storedRecord } from '../model/helpers';
import { extraHits, nearestRank, oracle, type OracleInput, type OracleResult } from './oracle';
import { twoRankCapture } from './two-rank-capture';

beforeAll(() => ensureBuilt(), 180_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-analyze-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `kvscope analyze ARGS`, with `stdin` piped into it when given. */
function analyze(args: string[], stdin?: Buffer): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'analyze', ...args], {
      cwd: ROOT,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const medium = (m: string | null | undefined): string => m ?? 'unspecified';

/** The fixture's rows as the oracle's events, source named as the importer names ranks. */
function fromTruth(rows: TruthEvent[], source = 'capture'): OracleInput[] {
  return rows.map((t): OracleInput => {
    const s = t.dp_rank !== null && t.dp_rank > 0 ? `${source}#${t.dp_rank}` : source;
    if (t.type === 'AllBlocksCleared') return { kind: 'cleared', source: s };
    if (t.type === 'BlockRemoved')
      return {
        kind: 'removed',
        source: s,
        ts: t.ts,
        hashes: t.block_hashes ?? [],
        medium: medium(t.medium),
      };
    return {
      kind: 'stored',
      source: s,
      ts: t.ts,
      hashes: t.block_hashes ?? [],
      parent: t.parent_block_hash ?? null,
      medium: medium(t.medium),
      blockSize: t.block_size ?? 0,
    };
  });
}

const BOUNDS = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Checks the analyze JSON against the oracle's figures, key by key. */
function expectMatches(json: Record<string, unknown>, o: OracleResult, T: number): void {
  const j = json as {
    [k: string]: unknown;
    lifetime: Record<string, Record<string, unknown>>;
    what_if: Record<string, unknown>[];
    cross_source: Record<string, unknown> & { overlap: Record<string, unknown>[] };
    hot_prefixes: Record<string, unknown>[];
    per_source: Record<string, Record<string, unknown>>;
  };
  const sum = (f: (c: OracleResult['cells'][number]) => number): number =>
    o.cells.reduce((n, c) => n + f(c), 0);
  expect({
    stored_blocks: j.stored_blocks,
    removed_blocks: j.removed_blocks,
    resident_blocks: j.resident_blocks,
    new_stores: j.new_stores,
    announced_hits: j.announced_hits,
    restores: j.restores,
    thrash_restores: j.thrash_restores,
    thrash_window_s: j.thrash_window_s,
  }).toEqual({
    stored_blocks: o.storedBlocks,
    removed_blocks: o.removedBlocks,
    resident_blocks: sum((c) => c.resident),
    new_stores: sum((c) => c.newStores),
    announced_hits: sum((c) => c.hits),
    restores: sum((c) => c.distances.length),
    thrash_restores: sum((c) => c.thrash),
    thrash_window_s: T,
  });
  expect(Object.keys(j.lifetime).sort()).toEqual([...o.lifetimes.keys()].sort());
  for (const [m, samples] of o.lifetimes) {
    const counts = new Array<number>(BOUNDS.length + 1).fill(0);
    for (const s of samples) {
      const b = BOUNDS.findIndex((ub) => s < ub);
      counts[b < 0 ? BOUNDS.length : b]! += 1;
    }
    expect(j.lifetime[m]).toMatchObject({
      count: samples.length,
      p50_s: nearestRank(samples, 0.5),
      p90_s: nearestRank(samples, 0.9),
      p99_s: nearestRank(samples, 0.99),
      histogram: counts.map((count, i) => ({ upper_s: BOUNDS[i] ?? null, count })),
    });
  }
  expect(j.what_if).toHaveLength(o.cells.length);
  for (const c of o.cells) {
    const w = j.what_if.find((x) => x.source === c.source && x.medium === c.medium);
    expect(w, `what_if row for ${c.source} ${c.medium}`).toBeDefined();
    expect(w).toMatchObject({
      peak_resident: c.peak,
      restores: c.distances.length,
      points: [0.1, 0.25, 0.5, 1, 2].map((f) => ({
        extra_fraction: f,
        extra_blocks: Math.ceil(f * c.peak),
        extra_hits: extraHits(c.distances, Math.ceil(f * c.peak)),
      })),
    });
  }
  const pairs = [...o.overlap].map(([k, blocks]) => {
    const [a, b] = k.split('\u0000');
    return { source_a: a, source_b: b, blocks };
  });
  expect(j.cross_source).toMatchObject({
    duplicate_stores: o.duplicateStores,
    routing_regret_blocks: o.regretBlocks,
    shared_blocks_now: o.sharedNow,
    duplicate_blocks_now: o.duplicateNow,
    overlap: pairs,
  });
  expect(j.hot_prefixes.map((h) => [h.hash, h.fan_out, h.store_events])).toEqual(
    o.hot.slice(0, 10).map((h) => [h.hash, h.fanOut, h.storeEvents]),
  );
  expect(Object.keys(j.per_source)).toEqual(o.sources);
  for (const s of o.sources) {
    const cells = o.cells.filter((c) => c.source === s);
    expect(j.per_source[s]).toMatchObject({
      new_stores: cells.reduce((n, c) => n + c.newStores, 0),
      restores: cells.reduce((n, c) => n + c.distances.length, 0),
    });
  }
}

/** A gzip session of the hybrid fixture with a publisher restart halfway; the oracle's inputs. */
function writeRestartSession(): { file: string; inputs: OracleInput[] } {
  const rows = readTruth(HYBRID_INT.truth);
  const cut = Math.floor(rows.length / 2);
  const lines = [JSON.stringify(makeHeader('test', new Date(0), []))];
  const inputs: OracleInput[] = [];
  rows.forEach((t, i) => {
    if (i === cut) {
      lines.push(
        encodeRecord({ k: 'reset', rec: { source: 'engine', previousSeq: t.seq, at: t.ts } }),
      );
      inputs.push({ kind: 'reset', source: 'engine' });
    }
    const hashes = t.block_hashes ?? [];
    const eventMedium = t.medium ?? null;
    const event: KvEvent =
      t.type === 'BlockRemoved'
        ? removed(hashes, eventMedium)
        : {
            ...stored(hashes, {
              parent: t.parent_block_hash ?? null,
              medium: eventMedium,
              blockSize: t.block_size ?? 0,
            }),
            token_count: t.token_count ?? 0,
          };
    lines.push(
      encodeRecord({
        k: 'event',
        rec: { source: 'engine', seq: t.seq, ts: t.ts, dp_rank: 0, idx: t.idx, event },
      }),
    );
    inputs.push(...fromTruth([t], 'engine'));
  });
  const file = path.join(dir, 'fixture.kvscope.jsonl.gz');
  writeFileSync(file, gzipSync(Buffer.from(`${lines.join('\n')}\n`)));
  return { file, inputs };
}

describe('kvscope analyze --json (built CLI)', () => {
  it('equals the oracle on the legacy vLLM fixture read as a capture', async () => {
    const r = await analyze([LEGACY_INT.truth, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    const o = oracle(fromTruth(readTruth(LEGACY_INT.truth)));
    expect(o.cells.reduce((n, c) => n + c.distances.length, 0)).toBeGreaterThan(0);
    expectMatches(json, o, 60);
  });

  it('equals the oracle on the hybrid fixture, gzipped, with another thrash window', async () => {
    const file = path.join(dir, 'hybrid.jsonl.gz');
    writeFileSync(file, gzipSync(Buffer.from(readFileSync(HYBRID_INT.truth, 'utf8'))));
    const r = await analyze([file, '--json', '--thrash-window', '0.2']);
    expect(r.code).toBe(0);
    const o = oracle(fromTruth(readTruth(HYBRID_INT.truth)), 0.2);
    const thrash = o.cells.reduce((n, c) => n + c.thrash, 0);
    expect(thrash).toBeLessThan(o.cells.reduce((n, c) => n + c.distances.length, 0));
    expectMatches(JSON.parse(r.stdout) as Record<string, unknown>, o, 0.2);
  });

  it('equals the oracle on a session file with a publisher restart in it', async () => {
    const { file, inputs } = writeRestartSession();
    const r = await analyze([file, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { input: { resets: number } };
    expect(json.input.resets).toBe(1);
    expectMatches(json as unknown as Record<string, unknown>, oracle(inputs), 60);
  });

  it('equals the oracle on a generated capture of two data-parallel ranks', async () => {
    const gen = twoRankCapture();
    const file = path.join(dir, 'two-ranks.jsonl');
    writeFileSync(file, gen.text);
    const r = await analyze([file, '--json']);
    expect(r.code).toBe(0);
    const o = oracle(gen.inputs);
    expect(o.sources).toEqual(['capture', 'capture#1']);
    // The capture was made to show everything: hits, re-stores, duplicates across ranks.
    expect(o.cells.reduce((n, c) => n + c.hits, 0)).toBeGreaterThan(0);
    expect(o.duplicateStores).toBeGreaterThan(0);
    expect(o.regretBlocks).toBeGreaterThan(0);
    expect(o.sharedNow).toBeGreaterThan(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expectMatches(json, o, 60);
    expect((json.per_source as Record<string, { dp_rank: number }>)['capture#1']?.dp_rank).toBe(1);
    // 64-bit hashes come out as exact text, and the prompt's token ids nowhere.
    expect(r.stdout).toMatch(/"hash": "1[0-9]{19}"/);
    for (const id of gen.tokenIds) expect(r.stdout + r.stderr).not.toContain(String(id));
  });
});

describe('kvscope analyze (text and errors)', () => {
  it('prints readable tables by default', async () => {
    const r = await analyze([LEGACY_INT.truth]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^KV cache analysis of .*legacy-int\.truth\.jsonl \(capture\): 669 events/,
    );
    for (const title of [
      'Totals',
      'Per source',
      'What-if capacity',
      'Lifetimes',
      "The router's view",
      'Hot prefixes',
    ])
      expect(r.stdout).toContain(title);
    // A capture's source is named after its file, as importing it on the screens names it.
    expect(r.stdout).toMatch(/legacy-int\.truth\.jsonl GPU\s+499 \(peak\)/);
    // Lifetimes in three significant digits, as the screens show them ("1.49 s", not "1.490 s").
    const lifetimes = r.stdout.slice(r.stdout.indexOf('Lifetimes'), r.stdout.indexOf('The router'));
    const seconds = lifetimes.match(/\b[\d.]+ s\b/g) ?? [];
    expect(seconds.length).toBeGreaterThan(0);
    for (const t of seconds) expect(t.replace(/\D/g, '').replace(/^0+/, '')).toMatch(/^\d{1,3}$/);
  });

  it('reads the analysis its first run kept back, printing the same, and keeps none with --no-cache', async () => {
    const cache = path.join(dir, 'analyze-cache');
    const args = [HYBRID_INT.truth, '--json', '--thrash-window', '7', '--cache-dir', cache];
    const first = await analyze(args);
    expect(first.code).toBe(0);
    expect(readdirSync(cache).filter((n) => n.endsWith('.state.br'))).toHaveLength(1);
    const again = await analyze(args);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toBe(first.stderr);
    // Another build would not read it: an entry of this one, cut short, is replayed instead.
    const [entry] = readdirSync(cache);
    writeFileSync(path.join(cache, entry as string), 'cut');
    expect((await analyze(args)).stdout).toBe(first.stdout);
    // A cache folder that cannot be made: the same report, and stderr says it was not kept.
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const blocked = await analyze([...args.slice(0, -1), path.join(blocker, 'cache')]);
    expect(blocked.stdout).toBe(first.stdout);
    expect(blocked.stderr).toMatch(
      /^# the analysis was not kept: it could not be kept in .*a-file\/cache \(.*\); the next analyze replays the file \(--cache-dir DIR keeps it elsewhere, --no-cache tries no more\)$/m,
    );
    // Nor in /proc, where Node's recursive mkdir never returns: it says so and exits.
    if (existsSync('/proc/self')) {
      const proc = await analyze([...args.slice(0, -1), '/proc/kvscope-nope/cache']);
      expect(proc.code).toBe(0);
      expect(proc.stdout).toBe(first.stdout);
      expect(proc.stderr).toMatch(/^# the analysis was not kept: it could not be kept in \/proc/m);
    }
    const none = path.join(dir, 'no-cache');
    const off = await analyze([...args.slice(0, -1), none, '--no-cache']);
    expect(off.stdout).toBe(first.stdout);
    expect(existsSync(none)).toBe(false);
  });

  it('says what is wrong with a --capacity: its shape, or its number of blocks', () => {
    expect(parseCapacity('a:b:GPU=512')).toEqual([{ source: 'a:b', medium: 'GPU', blocks: 512 }]);
    expect(() => parseCapacity('capture-GPU=512')).toThrow(/must look like SOURCE:MEDIUM=BLOCKS/);
    for (const bad of ['0', '-5', '1e300', '12.5', '', 'many'])
      expect(() => parseCapacity(`cli-1:GPU=${bad}`)).toThrow(
        `--capacity cli-1:GPU=${bad}: BLOCKS must be a whole number of blocks, 1 or more`,
      );
  });

  it('uses an engine capacity given with --capacity', async () => {
    const r = await analyze([LEGACY_INT.truth, '--json', '--capacity', 'capture:GPU=512']);
    expect(r.code).toBe(0);
    const w = (JSON.parse(r.stdout) as { what_if: Record<string, unknown>[] }).what_if.find(
      (x) => x.medium === 'GPU',
    );
    expect(w).toMatchObject({ capacity_blocks: 512, capacity_basis: 'engine' });
    // The name the text shows works as well as the id.
    const named = await analyze([LEGACY_INT.truth, '--capacity', 'legacy-int.truth.jsonl:GPU=512']);
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/legacy-int\.truth\.jsonl GPU\s+512 \(engine\)/);
  });

  it('refuses a --capacity naming a source or medium the file does not hold, listing what it holds', async () => {
    const source = await analyze([LEGACY_INT.truth, '--capacity', 'nosuch:GPU=100']);
    expect(source.code).toBe(1);
    expect(source.stdout).toBe('');
    // Said as the command's error, as a bad flag is (it was a "# " problem line).
    expect(source.stderr).toMatch(
      /^kvscope: --capacity nosuch:GPU=100: no source "nosuch" in the file; it holds legacy-int\.truth\.jsonl:GPU/m,
    );
    const medium = await analyze([LEGACY_INT.truth, '--capacity', 'capture:HBM=100']);
    expect(medium.code).toBe(1);
    expect(medium.stderr).toMatch(/source "capture" has no medium "HBM"; it holds /);
  });

  it('refuses two different --capacity for one source and medium, by id or by name, and takes the same twice', async () => {
    const named = 'legacy-int.truth.jsonl:GPU';
    const two = await analyze([
      LEGACY_INT.truth,
      '--capacity',
      'capture:GPU=512',
      '--capacity',
      `${named}=1024`,
    ]);
    expect(two.code).toBe(1);
    expect(two.stdout).toBe('');
    expect(two.stderr).toMatch(
      `kvscope: --capacity capture:GPU=512 and --capacity ${named}=1024 give one source's GPU two capacities: give one`,
    );
    const same = await analyze([
      LEGACY_INT.truth,
      '--json',
      '--capacity',
      'capture:GPU=512',
      '--capacity',
      `${named}=512`,
    ]);
    expect(same.code).toBe(0);
  });

  it('exits 0 and lists the bad lines on stderr when only part of a file is bad', async () => {
    const file = path.join(dir, 'partly-bad.jsonl');
    const good = readFileSync(LEGACY_INT.truth, 'utf8').split('\n').slice(0, 20);
    writeFileSync(file, [...good.slice(0, 10), '{not json', ...good.slice(10)].join('\n'));
    const r = await analyze([file, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/line 11: not JSON \(skipped\)/);
    expect((JSON.parse(r.stdout) as { input: { events: number } }).input.events).toBe(20);
  });

  it('exits non-zero with a clear message when nothing can be read', async () => {
    const file = path.join(dir, 'garbage.txt');
    writeFileSync(file, 'hello\nworld\n');
    const bad = await analyze([file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/no events could be read/);
    const empty = path.join(dir, 'empty.jsonl.gz');
    writeFileSync(empty, '');
    const none = await analyze([empty]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/the file is empty \(0 bytes\): nothing to open/);
    const missing = await analyze([path.join(dir, 'nope.jsonl')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no such file/);
    const window = await analyze([LEGACY_INT.truth, '--thrash-window', 'soon']);
    expect(window.code).not.toBe(0);
    expect(window.stderr).toMatch(/--thrash-window must be a number of seconds/);
  });

  it('says "no re-store" for the thrash share of a file with none (it printed "0 (- of re-stores)")', async () => {
    const file = path.join(dir, 'one-store.jsonl');
    writeFileSync(file, `${readFileSync(LEGACY_INT.truth, 'utf8').split('\n')[0]}\n`);
    const r = await analyze([file, '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/thrash \(re-stored within 60 s\) +0 \(no re-store\)/);
  });

  it('names a removed source and a source of the same name apart (a connection removed, then added again)', async () => {
    const beta = (id: string) => ({ id, name: 'beta', endpoint: 'tcp://127.0.0.1:1' });
    const lines = [JSON.stringify(makeHeader('test', new Date(0), [beta('338f7e08')]))];
    lines.push(
      encodeRecord({ k: 'event', rec: { ...storedRecord('338f7e08', 10, ['1']), seq: 0 } }),
    );
    lines.push(encodeRecord({ k: 'source', rec: { ...beta('338f7e08'), removedAt: 11 } }));
    lines.push(encodeRecord({ k: 'source', rec: beta('70e01516') }));
    lines.push(
      encodeRecord({ k: 'event', rec: { ...storedRecord('70e01516', 12, ['2']), seq: 0 } }),
    );
    const file = path.join(dir, 'beta-twice.kvscope.jsonl.gz');
    writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
    const r = await analyze([file, '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Removed during the recording, left out of every figure: beta \(338f7e08\)/,
    );
    expect(r.stdout).toMatch(/^ {2}beta \(70e01516\) /m);
  });

  it('cuts names of thousands of characters in its tables, keeping the ends that tell them apart', async () => {
    const long = 'x'.repeat(5_000);
    const medium = `M${'m'.repeat(1_000)}`;
    const source = (id: string) => ({ id, name: `${long}-${id}`, endpoint: 'tcp://127.0.0.1:1' });
    const lines = [JSON.stringify(makeHeader('test', new Date(0), [source('a1'), source('b2')]))];
    for (const id of ['a1', 'b2'])
      lines.push(
        encodeRecord({
          k: 'event',
          rec: { ...storedRecord(id, 10, ['1', '2'], null, medium), seq: 0 },
        }),
      );
    const file = path.join(dir, 'long-names.kvscope.jsonl.gz');
    writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
    const r = await analyze([file, '--no-cache']);
    expect(r.code).toBe(0);
    // Before, each table was as wide as its longest name: over 6,000 characters.
    const widest = Math.max(...r.stdout.split('\n').map((l) => l.length));
    expect(widest).toBeLessThan(160);
    expect(r.stdout).toMatch(/^ {2}x+…x+-a1 {2}/m);
    expect(r.stdout).toMatch(/^ {2}x+…x+-b2 {2}/m);
    // The what-if names the source and the medium, each cut.
    expect(r.stdout).toMatch(/^ {2}x+…x+-a1 Mm+…m+ +2 \(peak\)/m);
    // The router's view names both of the pair.
    expect(r.stdout).toMatch(/^ {2}x+…x+-a1 \/ x+…x+-b2 +2$/m);
  });

  it('lists the KV cache groups of a hybrid model, and with --group N gives the figures of that group alone', async () => {
    // The legacy fixture as a hybrid model publishes it: each store and removal once per group.
    const rows = readFileSync(LEGACY_INT.truth, 'utf8').trim().split('\n');
    const hybrid = rows.flatMap((line) => {
      const t = JSON.parse(line) as { type: string; idx: number; n_events: number };
      if (t.type === 'AllBlocksCleared')
        return [JSON.stringify({ ...t, idx: 2 * t.idx, n_events: 2 * t.n_events })];
      const kinds = ['full_attention', 'sliding_window'];
      return [0, 1].map((g) =>
        JSON.stringify({
          ...t,
          idx: 2 * t.idx + g,
          n_events: 2 * t.n_events,
          group_idx: g,
          ...(t.type === 'BlockStored' ? { kv_cache_spec_kind: kinds[g] } : {}),
        }),
      );
    });
    const file = path.join(dir, 'capture');
    writeFileSync(file, `${hybrid.join('\n')}\n`);
    const one = path.join(dir, 'one-group', 'capture');
    mkdirSync(path.dirname(one));
    writeFileSync(one, `${rows.join('\n')}\n`);
    const text = await analyze([file, '--no-cache']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}capture +0 +full_attention +[\d,]+ +[\d,]+ +yes$/m);
    expect(text.stdout).toMatch(/^ {2}capture +1 +sliding_window +[\d,]+ +[\d,]+ +yes$/m);
    expect(text.stdout).toContain('--group N analyses one group alone');
    // Counted by hash, every store into group 1 reads as a hit.
    const figures = (out: string) => {
      const j = JSON.parse(out) as Record<string, unknown> & {
        per_source: Record<string, Record<string, unknown>>;
      };
      // The group figures and the input (twice the events) are what differ: the rest is equal.
      const rest: Record<string, unknown> & typeof j = { ...j };
      delete rest.input;
      delete rest.kv_cache_group;
      for (const s of Object.values(rest.per_source)) {
        delete s.kv_cache_groups;
        delete s.kv_cache_group_count;
      }
      return rest;
    };
    const truth = figures((await analyze([one, '--json', '--no-cache'])).stdout);
    const all = figures((await analyze([file, '--json', '--no-cache'])).stdout);
    expect(all.announced_hits).toBeGreaterThan(truth.announced_hits as number);
    for (const group of ['0', '1']) {
      const r = await analyze([file, '--json', '--no-cache', '--group', group]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).kv_cache_group).toBe(Number(group));
      expect(figures(r.stdout)).toEqual(truth);
    }
    const bad = await analyze([file, '--group', 'full']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--group must be a whole number from 0 to 65536/);
    // A group the file never names would read all zeros: refused, naming those it holds.
    const absent = await analyze([file, '--no-cache', '--group', '2']);
    expect(absent.code).not.toBe(0);
    expect(absent.stdout).toBe('');
    expect(absent.stderr).toMatch(
      /--group 2: the file's events name no KV cache group 2 \(they name 0, 1;/,
    );
  });

  it('refuses a folder at once, saying what it is', async () => {
    const folder = await analyze([dir]);
    expect(folder.code).not.toBe(0);
    expect(folder.stderr).toMatch(/is a folder, not a file: give the path of a session/);
    expect(folder.stderr).not.toMatch(/EISDIR/);
  });
});

describe('kvscope analyze of a pipe (stdin, a named pipe)', () => {
  const session = (): string => writeRestartSession().file;

  it('reads - (stdin) as it reads the file: a gzip session and a plain capture', async () => {
    // A capture of 2 MB (the fixture ten times: ten restarts) arrives in many pipe reads: the
    // reads taken as a session's first are read again as the capture's.
    const long = path.join(dir, 'ten-times.jsonl');
    writeFileSync(long, readFileSync(LEGACY_INT.truth, 'utf8').repeat(10));
    for (const file of [session(), LEGACY_INT.truth, long]) {
      const fromFile = await analyze([file, '--json', '--no-cache']);
      const piped = await analyze(['-', '--json'], readFileSync(file));
      expect(piped.code).toBe(0);
      expect(piped.stderr).toBe(fromFile.stderr);
      expect(piped.stdout).toBe(fromFile.stdout);
    }
    // A capture read through a pipe is named after it, as a file is after its name.
    const text = await analyze(['-'], readFileSync(LEGACY_INT.truth));
    expect(text.stdout).toMatch(/^KV cache analysis of stdin \(capture\): 669 events/);
  });

  it('reads a named pipe (a FIFO, as `<(zcat ...)` gives) as a stream, keeping no analysis', async () => {
    const fifo = path.join(dir, 'pipe.kvscope.jsonl.gz');
    execFileSync('mkfifo', [fifo]);
    const cacheDir = path.join(dir, 'pipe-cache');
    // The writer opens the pipe once the reader does, and closes it at the end of the file.
    const writer = spawn('sh', ['-c', `cat "$1" > "$2"`, 'sh', session(), fifo]);
    const written = new Promise((resolve) => writer.once('close', resolve));
    const piped = await analyze([fifo, '--json', '--cache-dir', cacheDir]);
    expect(await written).toBe(0);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe((await analyze([session(), '--json', '--no-cache'])).stdout);
    // A pipe has no digest to find again: nothing is kept for it.
    expect(
      existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.br')) : [],
    ).toEqual([]);
  });

  it('says what is wrong when what is piped in holds no events', async () => {
    const empty = await analyze(['-'], Buffer.alloc(0));
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(
      /could not analyze stdin: not a KV Scope session: it is empty \(no line to read\)/,
    );
    const garbage = await analyze(['-'], Buffer.from('not json\n'));
    expect(garbage.code).not.toBe(0);
    expect(garbage.stderr).toMatch(/could not analyze stdin: .*line 1: not JSON/);
  });
});
