// Opening a file (and `kvscope analyze` of one) through the open cache: the state a replay built
// is kept (state-snapshot.ts, open-cache.ts), and the same file opened again reads it back
// instead of replaying its events. Without a cache, or for a stream, it is the replay alone.

import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  CacheAnalysis,
  type AnalysisGroupOption,
  type CacheAnalysisOptions,
} from '../analysis/cache-analysis';
import { CacheModel } from '../model/cache-model';
import { readEventLine } from './event-line';
import {
  loadIntoModel,
  replayFile,
  type LoadResult,
  type ReplayOptions,
  type ReplayResult,
} from './load';
import type { DigestTap, OpenCache } from './open-cache';
import type { SessionInput } from './line-reader';
import { readState, writeState, type StateBytes } from './state-snapshot';

/**
 * A state whose typed arrays are past this is not kept: its entry, about a quarter of it, would
 * take too much of the cache's 1 GiB (a 1M-event session's arrays are about 120 MB).
 */
export const MAX_KEPT_BYTES = 1024 * 2 ** 20;

/** Settles once the state is kept: null, or why it could not be (the next open replays). */
export type Kept = Promise<string | null> | null;

export interface CachedOpenOptions extends Pick<
  ReplayOptions,
  'kind' | 'captureSource' | 'onProgress'
> {
  /** Where states are kept; null or absent: every open replays. */
  cache?: OpenCache | null;
  /** The KV cache group the analysis takes alone (part of the key). */
  analysisOptions?: AnalysisGroupOption;
}

export interface CachedOpenResult extends LoadResult {
  /** Read back from the cache (no replay). */
  restored: boolean;
  /** The state being kept for the next open; null when it is not (read back, a stream...). */
  kept: Kept;
}

/** What an open keeps: its model, its analysis and what the replay said about the file. */
interface OpenState {
  /** The entry's own key: an entry found under another (a copy, a mix-up) is not this file's. */
  key: string;
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
  const { cache, analysisOptions = {}, ...load } = opts;
  const file = await fileOf(cache, input);
  // A capture's sources are named after it; a session reads the same under any name.
  const kind = load.kind ?? 'auto';
  const keyOf = (f: CachedFile, digest: string, captureSource: string | null): string =>
    f.cache.keyOf(
      { size: f.size, digest },
      { open: 'model+analysis', kind, captureSource, ...analysisOptions },
    );
  if (file?.digest) {
    // A cancel is heard here, after the file's digest.
    load.onProgress?.(0);
    const names = [...new Set([null, load.captureSource ?? null])];
    for (const name of names) {
      const key = keyOf(file, file.digest, name);
      const state = await restore(file, key, load.onProgress, (s): s is OpenState => {
        const o = s as Partial<OpenState> | null;
        return o?.model instanceof CacheModel && o.analysis instanceof CacheAnalysis && !!o.result;
      });
      if (!state) continue;
      state.model.reattach(readEventLine);
      const { model, analysis, result } = state;
      return { ...result, model, analysis, restored: true, kept: null };
    }
  }
  const tap = file?.digest === null ? file.cache.tap() : undefined;
  const r = await loadIntoModel(input, { ...load, analysisOptions, onBytes: tap?.onBytes });
  const { model, analysis, ...result } = r;
  let kept: Kept = null;
  const digest = file && (await digestAfterRead(file, tap, input));
  if (file && digest) {
    const name = result.kind === 'session' ? null : (load.captureSource ?? null);
    const key = keyOf(file, digest, name);
    // Written now, before anything else can change it (a capacity set in Insights, say).
    kept = keep(file.cache, { key, model, analysis, result } satisfies OpenState, [
      model,
      analysis,
    ]);
    // Writing it held the thread: a cancel pressed meanwhile is heard now, not lost.
    await new Promise((resolve) => setImmediate(resolve));
    load.onProgress?.(1);
  }
  return { ...r, restored: false, kept };
}

export interface CachedAnalysisOptions extends Pick<ReplayOptions, 'onProgress'> {
  analysisOptions?: Pick<CacheAnalysisOptions, 'thrashWindowS' | 'group'>;
  cache?: OpenCache | null;
}

export interface CachedAnalysisResult extends ReplayResult {
  analysis: CacheAnalysis;
  /** Sources the file marks removed, in its order (taken out of every total). */
  removed: string[];
  restored: boolean;
  kept: Kept;
}

interface AnalysisState {
  key: string;
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
  const file = await fileOf(cache, input);
  const keyOf = (f: CachedFile, digest: string): string =>
    f.cache.keyOf({ size: f.size, digest }, { open: 'analysis', ...analysisOptions });
  if (file?.digest) {
    const key = keyOf(file, file.digest);
    const state = await restore(file, key, onProgress, (s): s is AnalysisState => {
      const o = s as Partial<AnalysisState> | null;
      return o?.analysis instanceof CacheAnalysis && !!o.result && Array.isArray(o.removed);
    });
    if (state) {
      const { analysis, result, removed } = state;
      return { ...result, analysis, removed, restored: true, kept: null };
    }
  }
  const analysis = new CacheAnalysis(analysisOptions);
  const removed: string[] = [];
  const tap = file?.digest === null ? file.cache.tap() : undefined;
  const result = await replayFile(input, (rec) => analysis.apply(rec), {
    // As the screens do: a source the session marks removed leaves every total there.
    onSourceRemoved: (id) => {
      analysis.removeSource(id);
      removed.push(id);
    },
    onClockOffset: (id, seconds) => analysis.setClockOffset(id, seconds),
    onProgress,
    onBytes: tap?.onBytes,
  });
  const digest = file && (await digestAfterRead(file, tap, input));
  const kept =
    file && digest
      ? keep(
          file.cache,
          { key: keyOf(file, digest), analysis, result, removed } satisfies AnalysisState,
          [analysis],
        )
      : null;
  return { ...result, analysis, removed, restored: false, kept };
}

/** A file the cache can hold: its size, its size and mtime as one stamp, maybe its digest. */
interface CachedFile {
  cache: OpenCache;
  size: number;
  stamp: string;
  /**
   * Taken before the read when an entry is of a file of its size; else null, and the replay's
   * read takes it (no entry to find: the file is read once, not twice).
   */
  digest: string | null;
}

/** What the cache knows of the file before it is read; null without a cache or for a stream. */
async function fileOf(
  cache: OpenCache | null | undefined,
  input: SessionInput,
): Promise<CachedFile | null> {
  if (!cache || input instanceof Readable) return null;
  try {
    const { size, stamp } = await stampOf(input);
    const digest = (await cache.mayHold(size)) ? await cache.digestOf(input) : null;
    return { cache, size, stamp, digest };
  } catch {
    // A file that cannot be read is the open's to report, as it would without a cache.
    return null;
  }
}

/**
 * Its size, and a path's size and mtime as a stamp ('' for bytes): a file written to while it was
 * read is not kept.
 */
async function stampOf(input: string | Uint8Array): Promise<{ size: number; stamp: string }> {
  if (typeof input !== 'string') return { size: input.byteLength, stamp: '' };
  const s = await stat(input);
  return { size: s.size, stamp: `${s.size} ${s.mtimeMs}` };
}

/**
 * The digest of the file just replayed, or null when its state is not to be kept: the file
 * changed meanwhile (the state read is not its key's). The read's own (tap) when it took the
 * whole file, else read now. Asked as the read ends, before the caller may remove the file (an
 * upload's transfer file goes then).
 */
async function digestAfterRead(
  file: CachedFile,
  tap: DigestTap | undefined,
  input: SessionInput,
): Promise<string | null> {
  if (input instanceof Readable) return null;
  const now = await stampOf(input).catch(() => null);
  if (now?.stamp !== file.stamp) return null;
  if (file.digest !== null) return file.digest;
  // A capture is read twice (as a session first), its tap only the first time: maybe in part.
  if (tap && tap.bytes === file.size) return tap.digest();
  return file.cache.digestOf(input).catch(() => null);
}

/**
 * The state kept under key when it is one `is` accepts and names that key; any other entry is
 * removed. Progress is said (a cancel heard) between the entry's read and its decoding.
 */
async function restore<T extends { key: string }>(
  { cache }: CachedFile,
  key: string,
  onProgress: ((fraction: number) => void) | undefined,
  is: (s: unknown) => s is T,
): Promise<T | null> {
  const bytes = await cache.read(key);
  if (bytes === null) return null;
  onProgress?.(0.5);
  try {
    const s = readState(bytes);
    if (is(s) && s.key === key) {
      onProgress?.(1);
      return s;
    }
  } catch {
    // Not a state of this build: replayed, and written again.
  }
  await cache.forget(key);
  return null;
}

/**
 * Writes state now and keeps it in the background, unless it is too big (`parts` say how big);
 * settles with why it could not be kept, which only costs the next open its replay.
 */
function keep<T extends { key: string }>(
  cache: OpenCache,
  state: T,
  parts: ReadonlyArray<{ memoryParts(): Record<string, number> }>,
): Kept {
  const size = parts.reduce(
    (sum, p) => sum + Object.values(p.memoryParts()).reduce((a, b) => a + b, 0),
    0,
  );
  if (size > MAX_KEPT_BYTES) return null;
  let bytes: StateBytes;
  try {
    bytes = writeState(state);
  } catch (e) {
    return Promise.resolve(`its state could not be written (${(e as Error).message})`);
  }
  // The arrays' bytes are compressed from the live arrays, not a copy: kept only if they are
  // still as they were written once compressed.
  const written = bytes.fingerprint();
  const intact = () => bytes.fingerprint() === written;
  return cache.write(state.key, bytes.chunks(), { byteLength: bytes.byteLength, intact }).then(
    (kept) => (kept ? null : 'its state changed while it was kept'),
    (e: unknown) => `it could not be kept in ${cache.dir} (${(e as Error).message})`,
  );
}
