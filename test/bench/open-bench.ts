// Opening a session (DESIGN "Budgets"): a 1M-event session of two data-parallel ranks, written by
// the format's encoder, read several ways, each in a child process of its own so that its CPU and
// peak RSS are its own: (a) a bare gunzip + JSON.parse of every line (the baseline), (a') the same
// with one hash-table look-up per block and nothing else (the floor of any open that replays, as
// DESIGN's opens do: what the budget leaves past it is the reader's, the model's and the
// analysis' whole room), (b) readSession alone, (c) the replay into the model alone (its share), (d) the app's open (model + analysis,
// then its state kept in the open cache), (e) the built `kvscope analyze --json` (keeping its
// analysis likewise), and (f, g) both again, their state read back from the cache. The budget's
// verdict is the first open's: a file never opened here replays. KVSCOPE_OPEN_EVENTS sets a
// smaller size for a quick run. The same events as a version-1 file (every field written) give that
// file's size and baseline beside: a leaner file makes the baseline cheaper too.
import { execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import {
  FIND_ALL_KEYS,
  HashIds,
  keyPartsInto,
  TEXT_KEY,
} from '../../electron/collections/hash-ids';
import { CacheModel } from '../../electron/model/cache-model';
import { readEventLine } from '../../electron/session/event-line';
import { openCached } from '../../electron/session/cached-open';
import { replayIntoModel } from '../../electron/session/load';
import { OpenCache } from '../../electron/session/open-cache';
import { readSession } from '../../electron/session/read-session';
import { encodeRecord, makeHeader, SESSION_SUFFIX } from '../../electron/session/format';
import type { EventRecord } from '../../shared/events';
import { encodeBatch } from '../../electron/sim/encode';
import { SharedTraffic, Workload } from '../../electron/sim/workload';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { CLI, ROOT } from '../support/built-app';
import { v1EventLine } from '../support/session-v1';
import type { BenchResult } from './bench-result';

const EVENTS = Number(process.env.KVSCOPE_OPEN_EVENTS ?? 1_000_000);
/** DESIGN "Budgets": an open (and `analyze`) at most 2x a bare gunzip + JSON.parse, under 500 MB. */
const BUDGET = 2.0;
const RSS_BUDGET_MB = 500;
/** The argument that makes the bench bundle run one reader in a child (see openChild). */
export const OPEN_CHILD_FLAG = '--open-child';

type Mode = 'baseline' | 'floor' | 'read' | 'model' | 'load' | 'reopen';
/** The open cache's folder for the children (the bench's own, removed after). */
const CACHE_ENV = 'KVSCOPE_BENCH_OPEN_CACHE';

/** An event line of the current version. */
const currentLine = (rec: EventRecord): string => encodeRecord({ k: 'event', rec });

/**
 * Writes the session with the format's own encoder (or `line` of an older `version`), one gzip
 * stream (the file a Recording makes, in one member); returns what it holds.
 */
async function writeSession(
  file: string,
  line = currentLine,
  version?: number,
): Promise<{ events: number; stored: number }> {
  const shared = new SharedTraffic();
  const ranks = [0, 1].map(
    (rank) =>
      new Workload({
        seed: 11,
        rank,
        format: 'map',
        hash: 'int',
        reannounce: 0.1,
        stickiness: 0.8,
        shared,
      }),
  );
  const gz = createGzip();
  const done = pipeline(gz, createWriteStream(file));
  const sources = [0, 1].map((r) => ({ id: `engine#${r}`, name: `engine#${r}`, endpoint: '' }));
  const header = makeHeader('kvscope-bench', new Date(Date.UTC(2026, 0, 1)), sources);
  let text = `${JSON.stringify(version === undefined ? header : { ...header, version })}\n`;
  let events = 0;
  let stored = 0;
  for (let i = 0; events < EVENTS; i++) {
    const rank = i % 2;
    const source = `engine#${rank}`;
    const ts = 1_767_225_600 + i / 200;
    const d = decodeBatch(encodeBatch(ts, ranks[rank]!.nextBatch(), rank, 'map'));
    if (!d.ok) throw new Error(d.error);
    const seq = Math.floor(i / 2);
    for (const { idx, event } of d.events) {
      text += `${line({ source, seq, ts, dp_rank: rank, idx, event })}\n`;
      events += 1;
      if (event.type === 'BlockStored') stored += event.block_hashes.length;
    }
    if (text.length > 1 << 20) {
      if (!gz.write(text)) await once(gz, 'drain');
      text = '';
    }
  }
  gz.end(text);
  await done;
  return { events, stored };
}

/** The events and stored blocks of a session (read by the reader under test, outside the timing). */
async function countSession(file: string): Promise<{ events: number; stored: number }> {
  let events = 0;
  let stored = 0;
  await readSession(file, (r) => {
    if (r.k !== 'event') return;
    events += 1;
    if (r.rec.event.type === 'BlockStored') stored += r.rec.event.block_hashes.length;
  });
  return { events, stored };
}

/**
 * The baseline's work: inflate the file, split it into lines and JSON.parse each, handing each
 * value to `onValue`; the lines parsed.
 */
async function parseEveryLine(file: string, onValue: (value: unknown) => void): Promise<number> {
  let lines = 0;
  let rest = '';
  const parse = (line: string): void => {
    if (line === '') return;
    onValue(JSON.parse(line));
    lines += 1;
  };
  const gunzip = createReadStream(file).pipe(createGunzip({ chunkSize: 64 * 1024 }));
  gunzip.setEncoding('utf8');
  for await (const chunk of gunzip as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) parse(p);
  }
  parse(rest);
  return lines;
}

/** One reader, run in this process (the bench bundle started with OPEN_CHILD_FLAG). */
export async function openChild(mode: Mode, file: string): Promise<void> {
  let out: unknown;
  switch (mode) {
    case 'baseline':
      // Inflate, split, parse. Nothing is checked or kept.
      out = { lines: await parseEveryLine(file, () => undefined) };
      break;
    case 'floor': {
      // The baseline, then one look-up per block in a table of the hashes seen (HashIds, as the
      // model's and the analysis' SharedHashIds; findAll, as an open looks a batch up): a store
      // interns its hashes, a removal finds them. What any replay that tracks each block costs
      // before it models anything: the budget's room past it is the model's and the analysis'.
      const ids = new HashIds();
      // Parts and ids of an event's hashes (findAll reads them by the hash's index).
      let his = new Float64Array(FIND_ALL_KEYS);
      let los = new Float64Array(FIND_ALL_KEYS);
      let found = new Int32Array(FIND_ALL_KEYS);
      let next = 0;
      let blocks = 0;
      const lines = await parseEveryLine(file, (o) => {
        const ev = (o as { event?: { type?: string; block_hashes?: string[] } }).event;
        const hashes = ev?.block_hashes;
        if (hashes === undefined) return;
        const n = hashes.length;
        if (n > his.length) {
          his = new Float64Array(n);
          los = new Float64Array(n);
          found = new Int32Array(n);
        }
        for (let i = 0; i < n; i++) keyPartsInto(hashes[i] as string, his, los, i);
        for (let from = 0; from < n; from += FIND_ALL_KEYS)
          ids.findAll(his, los, hashes, from, Math.min(n, from + FIND_ALL_KEYS), found);
        blocks += n;
        if (ev?.type !== 'BlockStored') return;
        for (let i = 0; i < n; i++) {
          if ((found[i] as number) >= 0) continue;
          // Found again first: a hash twice in one store is interned once.
          const key = hashes[i] as string;
          if (his[i] === TEXT_KEY) {
            if (ids.find(key) < 0) ids.set(key, next++);
          } else if (ids.findParts(his[i] as number, los[i] as number) < 0)
            ids.setParts(his[i] as number, los[i] as number, next++);
        }
      });
      out = { lines, blocks, hashes: next };
      break;
    }
    case 'read': {
      let records = 0;
      const r = await readSession(file, () => (records += 1));
      out = { records, events: r.counts.events, problems: r.problems.length };
      break;
    }
    case 'model': {
      // The model's share of an open: what the load costs past reading, without the analysis.
      const model = new CacheModel({ readEventLine });
      const r = await replayIntoModel(file, model);
      out = { events: r.events, resident: model.kpis().residentBlocks };
      break;
    }
    case 'load':
    case 'reopen': {
      let progress = 0;
      const cache = new OpenCache({ dir: process.env[CACHE_ENV] as string, codeId: 'bench' });
      const r = await openCached(file, { cache, onProgress: () => (progress += 1) });
      if (r.restored !== (mode === 'reopen'))
        throw new Error(`${mode}: the state was ${r.restored ? '' : 'not '}read back`);
      // The app keeps the first open's state as it opens: its cost is the open's.
      await r.kept;
      const t = r.analysis.report().totals;
      out = {
        events: r.events,
        resident: r.model.kpis().residentBlocks,
        newStores: t.newStores,
        hits: t.announcedHits,
        restores: t.restores,
        progress,
      };
      break;
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

interface Run {
  cpuMs: number;
  wallMs: number;
  peakMb: number;
  out: string;
}

/** Runs a child with a hook that writes its own resource usage (CPU, peak RSS) as it exits. */
async function runChild(args: string[], hook: string, dir: string): Promise<Run> {
  const usage = path.join(dir, 'usage.json');
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--require', hook, ...args], {
    cwd: ROOT,
    env: { ...process.env, KVSCOPE_BENCH_USAGE: usage, [CACHE_ENV]: path.join(dir, 'open-cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`);
  const u = JSON.parse(await readFile(usage, 'utf8')) as NodeJS.ResourceUsage & {
    hwmKb: number | null;
  };
  return {
    cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000,
    wallMs,
    peakMb: (u.hwmKb ?? u.maxRSS) / 1024,
    out,
  };
}

// Written into the child by --require: resourceUsage at exit covers the whole process, threads
// (zlib's) included. Its peak RSS is /proc's VmHWM where there is one: Linux carries a parent's
// peak into maxRSS across fork and exec, so maxRSS would read at least this bench's own RSS.
const HOOK = `process.on('exit', () => {
  const fs = require('node:fs');
  let hwmKb = null;
  try { hwmKb = Number(/VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]); } catch {}
  fs.writeFileSync(process.env.KVSCOPE_BENCH_USAGE, JSON.stringify({ ...process.resourceUsage(), hwmKb }));
});\n`;

/** Time and peak RSS of opening a session, each a ratio to a bare gunzip + JSON.parse. */
export async function runOpenBench(): Promise<BenchResult> {
  execSync('npm run build:cli', { cwd: ROOT, stdio: 'pipe' });
  const dir = await mkdtemp(path.join(tmpdir(), 'kvscope-open-bench-'));
  try {
    // KVSCOPE_OPEN_FILE: a session to read (written there first when it does not exist yet).
    const file = process.env.KVSCOPE_OPEN_FILE ?? path.join(dir, `bench${SESSION_SUFFIX}`);
    const written = !existsSync(file);
    if (written) await writeSession(file);
    const { events, stored } = await countSession(file);
    const bytes = (await stat(file)).size;
    const hook = path.join(dir, 'usage-hook.cjs');
    await writeFile(hook, HOOK);
    const self = process.argv[1] as string;
    const mine = (mode: Mode): Promise<Run> =>
      runChild([self, OPEN_CHILD_FLAG, mode, file], hook, dir);
    const base = await mine('baseline');
    // The same events in version 1 (a file given by KVSCOPE_OPEN_FILE has no twin to compare).
    let v1: { bytes: number; base: Run } | null = null;
    if (written) {
      const v1File = path.join(dir, `bench-v1${SESSION_SUFFIX}`);
      await writeSession(v1File, v1EventLine, 1);
      v1 = {
        bytes: (await stat(v1File)).size,
        base: await runChild([self, OPEN_CHILD_FLAG, 'baseline', v1File], hook, dir),
      };
      await rm(v1File);
    }
    const floor = await mine('floor');
    const read = await mine('read');
    const model = await mine('model');
    const load = await mine('load');
    const reopen = await mine('reopen');
    const analyze = [CLI, 'analyze', '--json', '--cache-dir', path.join(dir, 'open-cache'), file];
    const cli = await runChild(analyze, hook, dir);
    const cliAgain = await runChild(analyze, hook, dir);
    if (cliAgain.out !== cli.out) throw new Error('kvscope analyze read back another report');
    // The app's figures and the CLI's are the same analysis of the same file.
    const loaded = JSON.parse(load.out) as { newStores: number; hits: number; restores: number };
    const json = JSON.parse(cli.out) as {
      new_stores: number;
      announced_hits: number;
      restores: number;
    };
    if (
      loaded.newStores !== json.new_stores ||
      loaded.hits !== json.announced_hits ||
      loaded.restores !== json.restores
    )
      throw new Error(`the open and kvscope analyze disagree: ${load.out} / ${cli.out}`);
    // The figures, not the progress calls (a state read back says its progress once).
    const figuresOf = (out: string): string =>
      JSON.stringify({ ...(JSON.parse(out) as object), progress: undefined });
    if (figuresOf(load.out) !== figuresOf(reopen.out))
      throw new Error(`the open read back other figures: ${load.out} / ${reopen.out}`);
    const verdict = (ok: boolean): string => (ok ? 'within' : 'OVER');
    /**
     * A reader's figures, each time both ways: CPU (all threads, zlib's included) and wall (spawn
     * to exit), each as a ratio to the baseline's same measure; with a budget, both against it
     * (the bench's verdict is CPU's, DESIGN words the budget as time: the row says both).
     */
    const row = (label: string, r: Run, budget: number | null): [string, string] => {
      const x = r.cpuMs / base.cpuMs;
      const xw = r.wallMs / base.wallMs;
      const against =
        budget === null
          ? ''
          : ` (budget ${budget.toFixed(1)}x): CPU ${verdict(x <= budget)}, wall ${verdict(xw <= budget)}`;
      return [
        label,
        `${r.cpuMs.toFixed(0)} ms CPU ${x.toFixed(2)}x, ${r.wallMs.toFixed(0)} ms wall ${xw.toFixed(2)}x, peak RSS ${r.peakMb.toFixed(0)} MB${against}`,
      ];
    };
    // The verdict: CPU (steadier than wall on a shared machine); the rows give wall beside it.
    const ratio = Math.max(load.cpuMs, cli.cpuMs) / base.cpuMs;
    const peak = Math.max(load.peakMb, cli.peakMb, reopen.peakMb, cliAgain.peakMb);
    return {
      title: `Opening a session: ${events.toLocaleString('en-US')} events of two ranks against a bare gunzip + JSON.parse (CPU and wall, each in its own process; the ratio is the first open's CPU)`,
      rows: [
        [
          'events / stored blocks / gzip bytes',
          `${events} / ${stored} / ${(bytes / 2 ** 20).toFixed(1)} MB`,
        ],
        [
          'gunzip + JSON.parse (baseline)',
          `${base.cpuMs.toFixed(0)} ms CPU, ${base.wallMs.toFixed(0)} ms wall, peak RSS ${base.peakMb.toFixed(0)} MB`,
        ],
        [
          'the same events in version 1 (every field written)',
          v1 === null
            ? 'not measured (KVSCOPE_OPEN_FILE given)'
            : `${(v1.bytes / 2 ** 20).toFixed(1)} MB gzip, its baseline ${v1.base.cpuMs.toFixed(0)} ms CPU (this file: ${((100 * bytes) / v1.bytes).toFixed(0)}% of the bytes, ${((100 * base.cpuMs) / v1.base.cpuMs).toFixed(0)}% of the baseline)`,
        ],
        row("the baseline + one hash look-up per block (a replay's floor)", floor, null),
        row('readSession (reading alone)', read, null),
        row('replay into the model alone (no analysis)', model, null),
        row('open (model + analysis, its state then kept)', load, BUDGET),
        row('kvscope analyze --json (its analysis then kept)', cli, BUDGET),
        row('open again (its state read back)', reopen, BUDGET),
        row('kvscope analyze --json again (read back)', cliAgain, BUDGET),
        [
          'figures',
          `${loaded.newStores} new stores, ${loaded.hits} hits, ${loaded.restores} re-stores (app = CLI)`,
        ],
        [
          'peak RSS (open, analyze)',
          `${load.peakMb.toFixed(0)} MB, ${cli.peakMb.toFixed(0)} MB; again ${reopen.peakMb.toFixed(0)} MB, ${cliAgain.peakMb.toFixed(0)} MB (budget ${RSS_BUDGET_MB} MB${events < 1_000_000 ? ', for 1M events' : ''}): ${verdict(peak <= RSS_BUDGET_MB)}`,
        ],
      ],
      // Both budgets in one ratio: time against its budget, and the peak RSS past its budget
      // counts as over too.
      ratio: peak <= RSS_BUDGET_MB ? ratio : Math.max(ratio, BUDGET + 1),
      budget: BUDGET,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
