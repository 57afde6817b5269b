// Opening a file (and `kvscope analyze` of one) through the open cache: the state a replay built
// is kept (state-snapshot.ts, open-cache.ts), and the same file opened again reads it back
// instead of replaying its events. Without a cache, or for a stream, it is the replay alone.

import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { CacheAnalysis, type CacheAnalysisOptions } from '../analysis/cache-analysis';
import { CacheModel } from '../model/cache-model';
import { readEventLine } from './event-line';
import {
  loadIntoModel,
  replayFile,
  type LoadResult,
  type ReplayOptions,
  type ReplayResult,
} from './load';
import type { OpenCache } from './open-cache';
import type { SessionInput } from './line-reader';
import { readState, writeState } from './state-snapshot';

/**
 * A state whose typed arrays are past this is not kept: its written copy would double the memory
 * the open holds (a 1M-event session's are about 120 MB).
 */
export const MAX_KEPT_BYTES = 256 * 2 ** 20;

export interface CachedOpenOptions extends Pick<
  ReplayOptions,
  'kind' | 'captureSource' | 'onProgress'
> {
  /** Where states are kept; null or absent: every open replays. */
  cache?: OpenCache | null;
}

export interface CachedOpenResult extends LoadResult {
  /** Read back from the cache (no replay). */
  restored: boolean;
  /** The state being kept for the next open (settles once written or failed); null if not. */
  kept: Promise<void> | null;
}

/** What an open keeps: its model, its analysis and what the replay said about the file. */
interface OpenState {
  model: CacheModel;
  analysis: CacheAnalysis;
  result: ReplayResult;
}

/**
 * Opens a session or a capture as loadIntoModel does, from the cache when it holds this file's
 * state, else by a replay whose state it then keeps.
 */
export async function openCached(
  input: SessionInput,
  opts: CachedOpenOptions = {},
): Promise<CachedOpenResult> {
  const { cache, ...load } = opts;
  const keyed = await keyOf(cache, input, {
    open: 'model+analysis',
    kind: load.kind ?? 'auto',
    captureSource: load.captureSource ?? null,
  });
  if (keyed) {
    const state = await restore(keyed, (s): s is OpenState => {
      const o = s as Partial<OpenState> | null;
      return o?.model instanceof CacheModel && o.analysis instanceof CacheAnalysis && !!o.result;
    });
    if (state) {
      state.model.reattach(readEventLine);
      load.onProgress?.(1);
      return {
        ...state.result,
        model: state.model,
        analysis: state.analysis,
        restored: true,
        kept: null,
      };
    }
  }
  const r = await loadIntoModel(input, load);
  const { model, analysis, ...result } = r;
  // Written now, before anything else can change it (a capacity set in Insights, say).
  const kept =
    keyed && (await unchanged(keyed, input))
      ? keep(keyed, { model, analysis, result } satisfies OpenState, [model, analysis])
      : null;
  return { ...r, restored: false, kept };
}

export interface CachedAnalysisOptions extends Pick<ReplayOptions, 'onProgress'> {
  analysisOptions?: Pick<CacheAnalysisOptions, 'thrashWindowS'>;
  cache?: OpenCache | null;
}

export interface CachedAnalysisResult extends ReplayResult {
  analysis: CacheAnalysis;
  /** Sources the file marks removed, in its order (taken out of every total). */
  removed: string[];
  restored: boolean;
  kept: Promise<void> | null;
}

interface AnalysisState {
  analysis: CacheAnalysis;
  result: ReplayResult;
  removed: string[];
}

/** The analysis alone of a file (`kvscope analyze`), from the cache when it holds it. */
export async function analyzeCached(
  input: SessionInput,
  opts: CachedAnalysisOptions = {},
): Promise<CachedAnalysisResult> {
  const { cache, analysisOptions = {}, onProgress } = opts;
  const keyed = await keyOf(cache, input, { open: 'analysis', ...analysisOptions });
  if (keyed) {
    const state = await restore(keyed, (s): s is AnalysisState => {
      const o = s as Partial<AnalysisState> | null;
      return o?.analysis instanceof CacheAnalysis && !!o.result && Array.isArray(o.removed);
    });
    if (state) {
      onProgress?.(1);
      return {
        ...state.result,
        analysis: state.analysis,
        removed: state.removed,
        restored: true,
        kept: null,
      };
    }
  }
  const analysis = new CacheAnalysis(analysisOptions);
  const removed: string[] = [];
  const result = await replayFile(input, (rec) => analysis.apply(rec), {
    // As the screens do: a source the session marks removed leaves every total there.
    onSourceRemoved: (id) => {
      analysis.removeSource(id);
      removed.push(id);
    },
    onProgress,
  });
  const kept =
    keyed && (await unchanged(keyed, input))
      ? keep(keyed, { analysis, result, removed } satisfies AnalysisState, [analysis])
      : null;
  return { ...result, analysis, removed, restored: false, kept };
}

/** A file's cache key, and its size and mtime when the key was taken. */
interface Keyed {
  cache: OpenCache;
  key: string;
  stamp: string;
}

/** The cache key of input opened as `asked` says; null without a cache or for a stream. */
async function keyOf(
  cache: OpenCache | null | undefined,
  input: SessionInput,
  asked: Record<string, unknown>,
): Promise<Keyed | null> {
  if (!cache || input instanceof Readable) return null;
  try {
    const stamp = await stampOf(input);
    return { cache, key: await cache.keyOf(input, asked), stamp };
  } catch {
    // A file that cannot be read is the open's to report, as it would without a cache.
    return null;
  }
}

/** A path's size and mtime ('' for bytes): a file written to while read is not kept. */
async function stampOf(input: string | Uint8Array): Promise<string> {
  if (typeof input !== 'string') return '';
  const s = await stat(input);
  return `${s.size} ${s.mtimeMs}`;
}

/**
 * True when the file is as it was when its key was taken (the state read is its key's). Asked as
 * the read ends, before the caller may remove the file (an upload's transfer file goes then).
 */
async function unchanged(k: Keyed, input: SessionInput): Promise<boolean> {
  if (input instanceof Readable) return false;
  return (await stampOf(input).catch(() => null)) === k.stamp;
}

/** The state kept under key when it is one `is` accepts; any other entry is removed. */
async function restore<T>({ cache, key }: Keyed, is: (s: unknown) => s is T): Promise<T | null> {
  const bytes = await cache.read(key);
  if (bytes === null) return null;
  try {
    const s = readState(bytes);
    if (is(s)) return s;
  } catch {
    // Not a state of this build: replayed below, and written again.
  }
  await cache.forget(key);
  return null;
}

/**
 * Writes state now and keeps it in the background, unless it is too big (`parts` say how big); a
 * failure to keep it only costs the next open.
 */
function keep(
  { cache, key }: Keyed,
  state: object,
  parts: ReadonlyArray<{ memoryParts(): Record<string, number> }>,
): Promise<void> | null {
  const size = parts.reduce(
    (sum, p) => sum + Object.values(p.memoryParts()).reduce((a, b) => a + b, 0),
    0,
  );
  if (size > MAX_KEPT_BYTES) return null;
  let bytes: Buffer;
  try {
    bytes = writeState(state);
  } catch {
    return null;
  }
  return cache.write(key, bytes).catch(() => undefined);
}
