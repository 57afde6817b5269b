// The recordings folder: one recording per start, kept within a budget of bytes (the oldest go
// first, never the one being written), and listed newest first so that the one a crash left
// behind can be reopened from the app.

import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SESSION_SUFFIX } from './format';

/** Default budget for all recordings together. */
export const DEFAULT_RECORDINGS_BUDGET_BYTES = 2 * 1024 ** 3;
/**
 * A recording written this recently may belong to another KV Scope running on the same folder
 * (the desktop app and `serve`, say): it is never removed, even over budget.
 */
export const RECENTLY_WRITTEN_MS = 5 * 60_000;
/** The environment variable that sets the budget where no flag can (the desktop app). */
export const BUDGET_ENV = 'KVSCOPE_RECORDINGS_BUDGET';

const NAME =
  /^recording-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-[0-9a-f]+\.kvscope\.jsonl\.gz$/;

/** One recording file in the folder. */
export interface RecordingFile {
  name: string;
  path: string;
  startedAt: Date;
  bytes: number;
  modifiedMs: number;
}

/** The start time a recording's file name carries, or null for a file that is no recording. */
export function recordingStartedAt(name: string): Date | null {
  const m = NAME.exec(name);
  if (!m || !name.endsWith(SESSION_SUFFIX)) return null;
  const d = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The recordings in `dir`, oldest first (a missing folder holds none). */
export async function listRecordingFiles(dir: string): Promise<RecordingFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: RecordingFile[] = [];
  for (const name of names) {
    const startedAt = recordingStartedAt(name);
    if (!startedAt) continue;
    const path = join(dir, name);
    // A file removed between readdir and stat (another instance's retention) is simply gone.
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) continue;
    files.push({ name, path, startedAt, bytes: info.size, modifiedMs: info.mtimeMs });
  }
  return files.sort(
    (a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.name.localeCompare(b.name),
  );
}

/** What a budget pass did. */
export interface RetentionResult {
  removed: string[];
  /** Bytes of the recordings left. */
  keptBytes: number;
}

/**
 * Removes the oldest recordings until all of them fit in `budgetBytes`; never `keepPath` (the one
 * being written) nor one written in the last RECENTLY_WRITTEN_MS.
 */
export async function enforceRecordingBudget(
  dir: string,
  budgetBytes: number,
  keepPath: string,
  now = Date.now(),
): Promise<RetentionResult> {
  const files = await listRecordingFiles(dir);
  let total = files.reduce((sum, f) => sum + f.bytes, 0);
  const removed: string[] = [];
  for (const f of files) {
    if (total <= budgetBytes) break;
    if (f.path === keepPath || now - f.modifiedMs < RECENTLY_WRITTEN_MS) continue;
    try {
      await rm(f.path, { force: true });
    } catch {
      // Open elsewhere (Windows) or not ours to remove: the next pass tries again.
      continue;
    }
    total -= f.bytes;
    removed.push(f.name);
  }
  return { removed, keptBytes: total };
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/** Parses a size such as "2GiB", "500 MB" or "1048576" (binary units: MB is MiB); throws saying what is accepted. */
export function parseByteSize(text: string, what = 'the recordings budget'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new Error(
      `${what} "${text}" is not a size: write it as 2GiB, 500MiB or a number of bytes`,
    );
  }
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes < 1024 ** 2) throw new Error(`${what} "${text}" is too small: give at least 1MiB`);
  return bytes;
}

/**
 * The budget $KVSCOPE_RECORDINGS_BUDGET sets (the default when unset), and why its value was not
 * taken (then the default), or null.
 */
export function budgetFromEnv(env = process.env[BUDGET_ENV]): {
  bytes: number;
  problem: string | null;
} {
  if (!env) return { bytes: DEFAULT_RECORDINGS_BUDGET_BYTES, problem: null };
  try {
    return { bytes: parseByteSize(env, BUDGET_ENV), problem: null };
  } catch (err) {
    const problem = `${(err as Error).message}; keeping recordings within 2 GiB instead`;
    return { bytes: DEFAULT_RECORDINGS_BUDGET_BYTES, problem };
  }
}

/** Keeps the folder within its budget now and then while a recording grows. */
export class RecordingRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  /** Why the last pass failed (a folder that cannot be read, say); null when it worked. */
  lastError: string | null = null;

  constructor(
    private readonly dir: string,
    readonly budgetBytes: number,
    private readonly keepPath: string,
  ) {}

  /** One pass now, then one every `everyMs`. */
  start(everyMs = 30_000): Promise<unknown> {
    this.timer = setInterval(() => void this.pass(), everyMs);
    this.timer.unref();
    return this.pass();
  }

  /** Runs one pass (one at a time). */
  pass(): Promise<unknown> {
    this.running = this.running.then(() =>
      enforceRecordingBudget(this.dir, this.budgetBytes, this.keepPath).then(
        (r) => {
          this.lastError = null;
          return r;
        },
        (err: unknown) => {
          this.lastError = err instanceof Error ? err.message : String(err);
        },
      ),
    );
    return this.running;
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
