// What opening a file built, kept in a folder of ours so that the same file opens again without
// replaying its events: a 1M-event session replays in about 16 s of CPU, its state reads back in
// about 2 s (the file's digest included). An entry is found by the file's bytes (a SHA-512 of
// them), the code that wrote it and what was asked of the open; any change to one is another key,
// so an entry is never read by a build that did not write it, or for a file that changed since.
// The key starts with the file's size: a file of a size no entry has is not looked up, and its
// digest is taken as its replay reads it (tap), not by reading it once more first.
// The folder is the app's own data folder (written by nothing else), so a state read from it is
// trusted as the app's own. An entry that cannot be read (cut short, another Node) is removed and
// the file replayed.

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createBrotliDecompress } from 'node:zlib';
import { makeDirs } from './make-dirs';

/** An entry: the length of its bytes (u64), then the bytes, brotli. */
const LENGTH_BYTES = 8;
/** No entry is longer (a state is kept up to 1 GiB: cached-open's MAX_KEPT_BYTES). */
const MAX_ENTRY_BYTES = 2 ** 31;

/**
 * An entry's bytes. They are inflated into one buffer of their length, not gathered and then
 * joined, which held them twice.
 */
async function unpack(packed: Buffer): Promise<Buffer> {
  const length = Number(packed.readBigUInt64LE(0));
  if (length > MAX_ENTRY_BYTES) throw new Error('not an entry');
  // Each byte is written below, and the length checked: none of what memory held stays.
  const bytes = Buffer.allocUnsafeSlow(length);
  let at = 0;
  await pipeline(
    Readable.from([packed.subarray(LENGTH_BYTES)]),
    createBrotliDecompress(),
    async (inflated: AsyncIterable<Buffer>) => {
      for await (const chunk of inflated) {
        if (at + chunk.length > length) throw new Error('an entry longer than it says');
        chunk.copy(bytes, at);
        at += chunk.length;
      }
    },
  );
  if (at !== length) throw new Error('an entry cut short');
  return bytes;
}

/** Bytes handed to onBytes, as they are read, and their digest once all are in. */
export interface DigestTap {
  onBytes(chunk: Uint8Array): void;
  /** How many bytes it has taken. */
  readonly bytes: number;
  digest(): string;
}

/** Entries past this many bytes in all are removed, least recently used first. */
export const DEFAULT_OPEN_CACHE_BYTES = 1 << 30;
const SUFFIX = '.state.br';
const PART = '.part';

export interface OpenCacheOptions {
  dir: string;
  /** Names the code that reads and writes the entries (codeIdOf): another one never reads them. */
  codeId: string;
  maxBytes?: number;
}

/** A folder of opened files' states, by key (keyOf). */
export class OpenCache {
  readonly dir: string;
  readonly codeId: string;
  private readonly maxBytes: number;

  constructor(opts: OpenCacheOptions) {
    this.dir = opts.dir;
    this.codeId = opts.codeId;
    this.maxBytes = opts.maxBytes ?? DEFAULT_OPEN_CACHE_BYTES;
  }

  /** The digest of `input` (a path or its bytes): a hash of its bytes (see tap). */
  async digestOf(input: string | Uint8Array): Promise<string> {
    const tap = this.tap();
    if (typeof input !== 'string') tap.onBytes(input);
    else for await (const chunk of createReadStream(input)) tap.onBytes(chunk as Buffer);
    return tap.digest();
  }

  /**
   * A digest taken from bytes as something else reads them; digestOf's when they are the whole
   * input. SHA-512: as strong as SHA-256 and on 64-bit CPUs about twice as fast on large inputs
   * (0.11 against 0.21 s for 112 MB here).
   */
  tap(): DigestTap {
    const h = createHash('sha512');
    let bytes = 0;
    return {
      onBytes: (chunk) => {
        h.update(chunk);
        bytes += chunk.length;
      },
      get bytes() {
        return bytes;
      },
      digest: () => h.digest('hex'),
    };
  }

  /**
   * The key of the file of `size` bytes and `digest` opened as `asked` says (its options, as
   * JSON), by this code. It starts with the size (mayHold).
   */
  keyOf({ size, digest }: { size: number; digest: string }, asked: unknown): string {
    const hash = createHash('sha256')
      .update(`${this.codeId}\n${JSON.stringify(asked)}\n${digest}`)
      .digest('hex');
    return `${size}-${hash}`;
  }

  /** False when no entry is of a file of `size` bytes: nothing to look up by its digest. */
  async mayHold(size: number): Promise<boolean> {
    const names = await readdir(this.dir).catch(() => []);
    return names.some((n) => n.startsWith(`${size}-`) && n.endsWith(SUFFIX));
  }

  /** The bytes kept under key, or null; an entry that cannot be read is removed. */
  async read(key: string): Promise<Buffer | null> {
    const file = this.fileOf(key);
    let packed: Buffer;
    try {
      packed = await readFile(file);
    } catch {
      return null;
    }
    try {
      const bytes = await unpack(packed);
      // Marked as used: the least recently used go first.
      const now = new Date();
      await utimes(file, now, now).catch(() => undefined);
      return bytes;
    } catch {
      await this.forget(key);
      return null;
    }
  }

  /**
   * Keeps the bytes of `chunks` (byteLength in all) under key, whole or not at all, then trims the
   * folder to its budget. The chunks may be views of live memory: `intact`, asked once they are
   * all compressed, says whether they are still the bytes meant; when not, nothing is kept and it
   * resolves false.
   */
  async write(
    key: string,
    chunks: Iterable<Uint8Array>,
    { byteLength, intact = () => true }: { byteLength: number; intact?: () => boolean },
  ): Promise<boolean> {
    await makeDirs(this.dir);
    const file = this.fileOf(key);
    // A name of its own: two opens of one file at once (one process or two) each write theirs,
    // and one rename wins.
    const part = `${file}.${process.pid}.${randomBytes(4).toString('hex')}${PART}`;
    try {
      // Brotli at quality 1: a quarter of the bytes (a state is mostly typed arrays, 40% zeros) in
      // about half a second for 1M events, where gzip -1 took 1.3 s to write and 1.0 s to read.
      // Streamed from the chunks as they are: no copy of them is made.
      const compress = createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 1,
          [constants.BROTLI_PARAM_SIZE_HINT]: byteLength,
        },
      });
      const length = Buffer.alloc(LENGTH_BYTES);
      length.writeBigUInt64LE(BigInt(byteLength));
      const out = createWriteStream(part);
      out.write(length);
      await pipeline(Readable.from(chunks), compress, out);
      if (!intact()) return false;
      await rename(part, file);
    } finally {
      await rm(part, { force: true });
    }
    await this.trim();
    return true;
  }

  /** Removes the entry under key, if there is one. */
  async forget(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  private fileOf(key: string): string {
    return path.join(this.dir, `${key}${SUFFIX}`);
  }

  /**
   * Removes the least recently used entries until the rest fit maxBytes, and what a write that
   * never finished left (a process killed while writing) once it is an hour old.
   */
  private async trim(): Promise<void> {
    const all = await readdir(this.dir);
    const hourAgo = Date.now() - 3600_000;
    for (const n of all.filter((n) => n.endsWith(PART))) {
      const s = await stat(path.join(this.dir, n)).catch(() => null);
      if (s && s.mtimeMs < hourAgo) await rm(path.join(this.dir, n), { force: true });
    }
    const names = all.filter((n) => n.endsWith(SUFFIX));
    const entries = await Promise.all(
      names.map(async (n) => {
        const s = await stat(path.join(this.dir, n)).catch(() => null);
        return { n, bytes: s?.size ?? 0, used: s?.mtimeMs ?? 0 };
      }),
    );
    let total = entries.reduce((sum, e) => sum + e.bytes, 0);
    for (const e of entries.sort((a, b) => a.used - b.used)) {
      if (total <= this.maxBytes) break;
      await rm(path.join(this.dir, e.n), { force: true });
      total -= e.bytes;
    }
  }
}

/** The open cache's folder in a data folder. */
export function openCacheDir(dataDir: string): string {
  return path.join(dataDir, 'open-cache');
}

/**
 * The open cache in `dir`, named by `codeId` when given (tests), else by the bundle this runs
 * from; null when it runs from no bundle (the sources under test).
 */
export async function openCacheIn(
  dir: string,
  opts: { codeId?: string; maxBytes?: number } = {},
): Promise<OpenCache | null> {
  // Bundled (cli.cjs, service-host.cjs), __filename is the bundle, whichever module asks.
  const codeId =
    opts.codeId ?? (await codeIdOf(typeof __filename === 'string' ? __filename : undefined));
  return codeId === null ? null : new OpenCache({ dir, codeId, maxBytes: opts.maxBytes });
}

/**
 * What names the running code for OpenCache: the built bundle's own bytes (`file`, the bundle
 * this runs from) and the V8 that serializes. Null when not run from a bundle (the sources under
 * test): nothing would tell one edit of them from the next.
 */
async function codeIdOf(file: string | undefined): Promise<string | null> {
  if (file === undefined || !/\.c?js$/.test(file)) return null;
  const bytes = await readFile(file).catch(() => null);
  if (bytes === null) return null;
  return createHash('sha256')
    .update(bytes)
    .update(`\n${process.versions.v8}\n${process.arch}`)
    .digest('hex');
}
