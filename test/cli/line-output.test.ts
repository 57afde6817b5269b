import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineOutput } from '../../electron/cli/line-output';

/** A real stream that takes nothing until released, then everything (a pipe whose reader is late). */
function slowStream(highWaterMark: number): {
  stream: Writable;
  chunks: Buffer[];
  release: () => void;
} {
  const chunks: Buffer[] = [];
  const waiting: (() => void)[] = [];
  let flowing = false;
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, done) {
      // Copy: a chunk must stay valid until written, and it is checked after later writes.
      chunks.push(Buffer.from(chunk));
      if (flowing) done();
      else waiting.push(done);
    },
  });
  const release = (): void => {
    flowing = true;
    for (const done of waiting.splice(0)) done();
  };
  return { stream, chunks, release };
}

describe('LineOutput', () => {
  it('writes numbers and strings exactly as JSON.stringify does', async () => {
    const { stream, chunks, release } = slowStream(1 << 20);
    const o = new LineOutput(stream);
    const values = [0, -0, 7, -12, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, 1e21, 0.1, -1.5e-7];
    for (const v of values) {
      o.number(v);
      o.byte(0x20);
    }
    for (const v of [NaN, Infinity, -Infinity]) {
      o.number(v);
      o.byte(0x20);
    }
    const strings = [
      'GPU',
      '',
      'a"b',
      'back\\slash',
      'tab\t',
      '\u0001',
      'é名😀',
      '\u2028',
      '~\u007f',
    ];
    for (const s of strings) {
      o.jsonString(s);
      o.byte(0x20);
    }
    const done = o.end();
    release();
    await done;
    const want =
      values.map((v) => JSON.stringify(v)).join(' ') +
      ' null null null ' +
      strings.map((s) => JSON.stringify(s)).join(' ') +
      ' ';
    expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
  });

  it('holds the source while the stream is behind and lets it go once drained', async () => {
    const { stream, chunks, release } = slowStream(1024);
    const o = new LineOutput(stream);
    expect(o.blocked()).toBeNull();
    o.ascii('x'.repeat(4096));
    o.flush();
    const held = o.blocked();
    expect(held).not.toBeNull();
    let letGo = false;
    void held?.then(() => (letGo = true));
    await Promise.resolve();
    expect(letGo).toBe(false);
    release();
    await held;
    expect(o.blocked()).toBeNull();
    expect(chunks.map((c) => c.length)).toEqual([4096]);
  });

  it('never overwrites bytes handed out before they are written, long lines included', async () => {
    const { stream, chunks, release } = slowStream(1 << 30);
    const o = new LineOutput(stream);
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      // Lines from 10 bytes to past the buffer's size, each flushed and left unwritten.
      const line = `${i}:${String.fromCharCode(97 + (i % 26)).repeat((i * 7919) % 300_000)}\n`;
      lines.push(line);
      o.ascii(line);
      o.endLine();
      if (i % 3 === 0) o.flush();
    }
    const done = o.end();
    release();
    await done;
    expect(Buffer.concat(chunks).toString('latin1')).toBe(lines.join(''));
  });

  it('reuses its buffer only for chunks already written: held chunks keep their bytes', async () => {
    // Chunks held by reference until released (no copy at write time), then read.
    const held: { chunk: Buffer; done: () => void }[] = [];
    const chunks: Buffer[] = [];
    let holding = true;
    const stream = new Writable({
      highWaterMark: 1 << 30,
      write(chunk: Buffer, _enc, done) {
        if (holding) held.push({ chunk, done });
        else {
          chunks.push(Buffer.from(chunk));
          done();
        }
      },
    });
    const o = new LineOutput(stream);
    const lines: string[] = [];
    const write = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const line = `${lines.length} ${'y'.repeat(lines.length % 300)}\n`;
        lines.push(line);
        o.ascii(line);
        o.endLine();
        if (i % 50 === 0) o.flush();
      }
    };
    write(3000);
    o.flush();
    holding = false;
    for (const h of held.splice(0)) {
      chunks.push(Buffer.from(h.chunk));
      h.done();
    }
    // Written through now: the buffer is reused, and nothing written earlier is overwritten.
    write(3000);
    await o.end();
    expect(Buffer.concat(chunks).toString('latin1')).toBe(lines.join(''));
  });
});
