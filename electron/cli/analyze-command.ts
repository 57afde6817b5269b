// `kvscope analyze FILE`: replays a session or a capture through the cache analysis and prints
// the report (tables, or the JSON of DESIGN.md with --json). Problems go to stderr; the exit code
// is 0 when something could be read, 1 when nothing could (a file the screens refuse to open as
// well, with the same reason).
import type { Stats } from 'node:fs';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { CacheAnalysis, CapacityOverride } from '../analysis/cache-analysis';
import { toAnalyzeJson } from '../analysis/analyze-json';
import { analyzeCached } from '../session/cached-open';
import { openCacheDir, openCacheIn, type OpenCache } from '../session/open-cache';
import { defaultDataDir } from '../service/data-dir';
import type { SessionSource } from '../session/format';
import { notAFile, notRegularFile } from '../session/regular-file';
import type { SessionInput } from '../session/line-reader';
import { namedReport, sourceLabels } from './analyze-names';
import { terminalProgress } from './analyze-progress';
import { analyzeText } from './analyze-text';
import { kvCacheGroupOption, wholeNumber } from './option-values';

interface AnalyzeFlags {
  json?: boolean;
  thrashWindow: number;
  capacity: CapacityOverride[];
  group?: number;
  /** False with --no-cache. */
  cache: boolean;
  cacheDir?: string;
}

function seconds(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new Error(`--thrash-window must be a number of seconds >= 0, got "${v}"`);
  return n;
}

/** Parses one --capacity SOURCE:MEDIUM=BLOCKS into the list so far. */
export function parseCapacity(v: string, list: CapacityOverride[] = []): CapacityOverride[] {
  const m = /^(.+):([^:=]+)=(.*)$/.exec(v.trim());
  if (!m)
    throw new Error(
      `--capacity must look like SOURCE:MEDIUM=BLOCKS (e.g. capture:GPU=32768, the engine's num_gpu_blocks), got "${v}"`,
    );
  // The shape is right: say what is wrong with the number.
  const blocks = wholeNumber(m[3] as string, 1, Number.MAX_SAFE_INTEGER);
  if (blocks === null)
    throw new Error(
      `--capacity ${v}: BLOCKS must be a whole number of blocks, 1 or more (the engine's num_gpu_blocks)`,
    );
  return [...list, { source: m[1] as string, medium: m[2] as string, blocks }];
}

/** Registers `kvscope analyze`. */
export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description(
      'Cache insights of a session or capture: hits, re-stores, thrash, what-if capacity, lifetimes, duplicates across sources, hot prefixes',
    )
    .argument(
      '<file>',
      'a KV Scope session (.kvscope.jsonl.gz) or a JSONL capture, gzip or not; - reads it from stdin',
    )
    .option('--json', 'print the JSON report (snake_case keys, hashes as text)')
    .option(
      '--thrash-window <sec>',
      're-stores within this many seconds of their removal are thrash',
      seconds,
      60,
    )
    .option(
      '--capacity <source:medium=blocks>',
      "the engine's real capacity of a (source, medium), e.g. its num_gpu_blocks (repeatable)",
      parseCapacity,
      [],
    )
    .addOption(kvCacheGroupOption())
    .option(
      '--cache-dir <dir>',
      'keep the analysis of a file here, so that the same file is analyzed again without replaying it (default: open-cache in the data folder)',
    )
    .option('--no-cache', 'replay the file, neither reading nor keeping a kept analysis')
    .action((file: string, flags: AnalyzeFlags) => runAnalyze(file, flags));
}

async function runAnalyze(file: string, flags: AnalyzeFlags): Promise<void> {
  const err = (line: string): void => void process.stderr.write(`# ${line}\n`);
  const { input, size } = await analyzeInput(file);
  const name = file === '-' ? 'stdin' : file;
  // Capacities are set once the file has said which sources and media it holds (a typo is an
  // error then, never silently ignored); they are read only when the report is made.
  const progress = size === null ? null : terminalProgress(process.stderr, file, size);
  // Only the analysis: the model and its event log are for the screens.
  const r = await analyzeCached(input, {
    analysisOptions: {
      thrashWindowS: flags.thrashWindow,
      ...(flags.group === undefined ? {} : { group: flags.group }),
    },
    cache: await analyzeCache(flags),
    onProgress: progress ? (f) => progress.update(f) : undefined,
  })
    .catch((e: unknown) => {
      // The reason the screens give for the same file (could not open FILE: ...).
      throw new Error(`could not analyze ${name}: ${e instanceof Error ? e.message : String(e)}`);
    })
    .finally(() => progress?.done());
  const { analysis, removed } = r;
  for (const p of r.problems) err(p);
  // The text names sources as the screens do: a session's by its header, a capture's after the
  // file (cap.jsonl, cap.jsonl#1), as an import names them. The JSON keys them by id, as the
  // file's event lines do (what a script or a checker matches), with their names beside.
  const ids = analysis.sources.map((s) => s.name);
  // A source removed and then back again is among the sources, not among the removed.
  const removedIds = [...new Set(removed)].filter((id) => !ids.includes(id));
  // Named together: a removed source that shares a name with another keeps its id beside it.
  const labels = sourceLabels(
    [...ids, ...removedIds],
    r.header?.sources ?? (r.kind === 'capture' ? captureNames(ids, path.basename(name)) : []),
  );
  // A --capacity the file does not hold is the command's error, as a bad flag is ("kvscope: ...").
  // One (source, medium) given twice, by id and by name perhaps, must say one number.
  const given = new Map<string, CapacityOverride>();
  for (const c of flags.capacity) {
    const { source, medium } = resolveCapacity(analysis, labels, c);
    const before = given.get(`${source}\0${medium}`);
    if (before !== undefined && before.blocks !== c.blocks)
      throw new Error(
        `--capacity ${before.source}:${before.medium}=${before.blocks} and --capacity ${c.source}:${c.medium}=${c.blocks} give one source's ${medium} two capacities: give one`,
      );
    given.set(`${source}\0${medium}`, c);
    analysis.setCapacity(source, medium, c.blocks);
  }
  if (flags.group !== undefined) checkGroupHeld(analysis, flags.group);
  const report = analysis.report();
  // What the text says of the file, for the JSON: the names a session's header gives (a capture's
  // are made up from the file's name: not said), the sources removed, the reader's problems.
  const context = {
    names: r.header ? labels : new Map<string, string>(),
    removed: removedIds,
    problems: r.problems,
  };
  const out = flags.json
    ? `${JSON.stringify(toAnalyzeJson(report, r, context), null, 2)}\n`
    : analyzeText(namedReport(report, labels), {
        file: name,
        kind: r.kind,
        removed: removedIds.map((id) => labels.get(id) ?? id),
        read: r,
      });
  await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
  // The next analyze of this file reads it back: wait until it is kept (a failure only costs that).
  const notKept = await r.kept;
  if (notKept !== null)
    err(
      `the analysis was not kept: ${notKept}; the next analyze replays the file (--cache-dir DIR keeps it elsewhere, --no-cache tries no more)`,
    );
}

/**
 * A --group the file's events never name is the command's error, as a --capacity it does not
 * hold is: its figures would all read 0, as if the group were idle. (A source past the tracked
 * groups may hold it unlisted: then it is analysed as asked.)
 */
function checkGroupHeld(analysis: CacheAnalysis, group: number): void {
  const sources = analysis.sources;
  if (sources.some((s) => s.groups.has(group) || s.groupsCapped)) return;
  const named = [...new Set(sources.flatMap((s) => [...s.groups.keys()]))].sort((a, b) => a - b);
  throw new Error(
    `--group ${group}: the file's events name no KV cache group ${group} (they name ${named.length === 0 ? 'none' : named.join(', ')}; an event without group_idx is group 0)`,
  );
}

/**
 * What `analyze FILE` reads: a regular file (its size for the progress), or a pipe: `-` for stdin,
 * a named pipe or `<(zcat ...)` (read as a stream, no progress, nothing kept).
 */
async function analyzeInput(file: string): Promise<{ input: SessionInput; size: number | null }> {
  if (file === '-') {
    if (process.stdin.isTTY)
      throw new Error('- reads the session from stdin, which is a terminal: pipe one into it');
    return { input: process.stdin, size: null };
  }
  let info: Stats;
  try {
    info = await stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? `${file}: no such file (give the path of a session or a capture)`
        : `${file}: cannot be read (${(e as Error).message})`,
    );
  }
  if (info.isFIFO()) return { input: createReadStream(file), size: null };
  const what = notRegularFile(info);
  if (what !== null) throw notAFile(file, what);
  return { input: file, size: info.size };
}

/** Where analyses are kept (--cache-dir, else the data folder's), or null with --no-cache. */
function analyzeCache(flags: AnalyzeFlags): Promise<OpenCache | null> {
  if (!flags.cache) return Promise.resolve(null);
  return openCacheIn(flags.cacheDir ?? openCacheDir(defaultDataDir()));
}

/** A capture's sources named after its file, as importing it names them (capture#1: cap.jsonl#1). */
function captureNames(ids: readonly string[], base: string): SessionSource[] {
  return ids.map((id) => ({ id, name: id.replace(/^capture/, base), endpoint: '' }));
}

/**
 * The (source id, medium) a --capacity names: the source by its id or by the name the text shows,
 * the medium among that source's. Otherwise an error that lists what the file holds.
 */
function resolveCapacity(
  analysis: CacheAnalysis,
  labels: ReadonlyMap<string, string>,
  c: CapacityOverride,
): { source: string; medium: string } {
  const held = analysis.sources.flatMap((s) =>
    [...s.media.keys()].map((m) => `${labels.get(s.name) ?? s.name}:${m}`),
  );
  const src =
    analysis.sources.find((s) => s.name === c.source) ??
    analysis.sources.find((s) => labels.get(s.name) === c.source);
  const what = `--capacity ${c.source}:${c.medium}=${c.blocks}`;
  const have = held.length === 0 ? 'the file holds no blocks' : `it holds ${held.join(', ')}`;
  if (!src) throw new Error(`${what}: no source "${c.source}" in the file; ${have}`);
  if (!src.media.has(c.medium))
    throw new Error(`${what}: source "${c.source}" has no medium "${c.medium}"; ${have}`);
  return { source: src.name, medium: c.medium };
}
