// A stream (a pipe: `kvscope analyze -`) read from its start a second time. Whether input is a
// session or a capture is known only once its first line was read as a session's; a file is
// then opened again, a pipe cannot be. Its first bytes are kept until the caller says the kind
// is known (release), so a capture's read can start from them.

import { Readable } from 'node:stream';

export class Rewindable {
  private kept: Buffer[] | null = [];
  private keptBytes = 0;
  private overflowed = false;
  private readonly source: AsyncIterator<unknown>;
  /** The source's read in flight: a chunk the first read asked for is kept even if it stopped. */
  private reading: Promise<Buffer | null> = Promise.resolve(null);

  /** maxKept: the bytes kept at most (a first line's worth: past it, the stream cannot rewind). */
  constructor(
    source: Readable,
    private readonly maxKept: number,
  ) {
    // Not destroyed when the first read stops early: the second reads on from where it stopped.
    this.source = source.iterator({ destroyOnReturn: false });
  }

  /** The stream from its start, keeping what it reads for again(). */
  first(): Readable {
    return Readable.from(this.chunks(), { objectMode: false });
  }

  /** The kind is known: nothing more is kept, and again() is not called. */
  release(): void {
    this.kept = null;
  }

  /** The stream from its start once more: what first() read, then the rest. */
  again(): Readable {
    if (this.overflowed || this.kept === null)
      throw new Error(
        `the stream's first line is past ${this.maxKept} bytes: it cannot be read again from its start as a capture; save it to a file`,
      );
    return Readable.from(this.fromStart(), { objectMode: false });
  }

  private async *fromStart(): AsyncGenerator<Buffer> {
    // A chunk the first read asked for before it stopped is kept once it comes.
    await this.reading;
    const kept = this.kept ?? [];
    this.kept = null;
    yield* kept;
    yield* this.chunks();
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      this.reading = this.next();
      const chunk = await this.reading;
      if (chunk === null) return;
      yield chunk;
    }
  }

  /** The source's next chunk (kept while keeping), null at its end. */
  private async next(): Promise<Buffer | null> {
    const r = await this.source.next();
    if (r.done) return null;
    const chunk = toBuffer(r.value);
    if (this.kept !== null) {
      this.keptBytes += chunk.length;
      if (this.keptBytes > this.maxKept) {
        this.kept = null;
        this.overflowed = true;
      } else this.kept.push(chunk);
    }
    return chunk;
  }
}

const toBuffer = (v: unknown): Buffer =>
  Buffer.isBuffer(v) ? v : typeof v === 'string' ? Buffer.from(v) : Buffer.from(v as Uint8Array);
