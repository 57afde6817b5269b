// capture --json's fast path against the exact path, batch by batch: the same bytes for every
// pinned wire variant, and the batches engines send taken without the exact path.
import { Writable } from 'node:stream';
import { encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { BatchJsonWriter } from '../../electron/cli/capture-batch-json';
import { EventJsonWriter } from '../../electron/cli/event-json';
import { LineOutput } from '../../electron/cli/line-output';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { readSeq } from '../../electron/wire/message';
import {
  viewOf,
  writeMicrosDecimalAt,
  writeU64DecimalAt,
  writeUintDecimal,
  writeUintDecimalAt,
} from '../../electron/wire/decimal-bytes';
import { captureVariantMessages } from '../support/capture-variants';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';

/** A LineOutput into memory, and what it holds so far. */
function memoryOutput(): { out: LineOutput; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const out = new LineOutput(stream);
  return {
    out,
    text: () => {
      out.flush();
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** The exact path's lines for one batch, as capture prints them (rank filled in for --dp). */
function exactLines(
  w: EventJsonWriter,
  payload: Uint8Array,
  seq: number,
  rankIfNone: number | null,
): void {
  const d = decodeBatch(payload);
  if (!d.ok || d.ts === null) return;
  for (const e of d.events) {
    w.write({
      source: 's',
      seq,
      ts: d.ts,
      dp_rank: d.dpRank ?? rankIfNone,
      idx: e.idx,
      event: e.event,
    });
  }
}

/** Both paths over the same batches: each batch by the fast path where it takes it. */
function bothPaths(payloads: readonly Uint8Array[], rankIfNone: number | null) {
  const a = memoryOutput();
  const exact = new EventJsonWriter(a.out);
  const b = memoryOutput();
  const exactB = new EventJsonWriter(b.out);
  const fast = new BatchJsonWriter(b.out, exactB);
  let taken = 0;
  payloads.forEach((p, seq) => {
    exactLines(exact, p, seq, rankIfNone);
    const n = fast.write(p, seq, rankIfNone);
    if (n >= 0) taken++;
    else exactLines(exactB, p, seq, rankIfNone);
  });
  return { exact: a.text(), fast: b.text(), taken };
}

const variantPayloads = (): Uint8Array[] =>
  captureVariantMessages()
    .filter((m) => m.length === 3 && readSeq(m[1] as Uint8Array) !== null)
    .map((m) => m[2] as Uint8Array);

describe('capture --json fast path', () => {
  it('prints every pinned wire variant byte for byte as the exact path does', () => {
    for (const rank of [null, 5]) {
      const r = bothPaths(variantPayloads(), rank);
      expect(r.fast).toBe(r.exact);
      expect(r.fast.length).toBeGreaterThan(100_000);
    }
  });

  it("takes vLLM's fixture batches itself once their tails are known", () => {
    const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
    // Twice over: the first pass teaches the exact path's tail cache.
    const r = bothPaths([...payloads, ...payloads], null);
    expect(r.fast).toBe(r.exact);
    expect(r.taken).toBeGreaterThanOrEqual(payloads.length + payloads.length * 0.9);
  });

  it('prints a batch larger than the room lent to it, after lines still waiting, as the exact path does', () => {
    const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
    // One BlockStored of 15,000 u64 hashes: a line of about 300 KB, more than the output's whole
    // buffer (256 KB), so that the fast path grows it.
    const hashes = Array.from({ length: 15000 }, (_, i) => 0xfedcba9876543210n - BigInt(i) * 7919n);
    const tokens = Array.from({ length: 64 }, (_, i) => i);
    const big = encode(
      [1767225601.5, [['BlockStored', hashes, null, tokens, 16, null, 'GPU']], 0],
      { useBigInt64: true },
    );
    const stream = [...payloads, ...payloads.slice(0, 50), big, ...payloads.slice(0, 50), big];
    const r = bothPaths(stream, null);
    expect(r.fast).toBe(r.exact);
    expect(r.fast).toContain('"block_hashes":[18364758544493064720,18364758544493056801,');
    // Both big batches went by the fast path (the exact path would print the same bytes).
    expect(r.taken).toBeGreaterThanOrEqual(payloads.length * 0.9 + 102);
  });

  it('prints repeated and reordered map keys as the exact path does (the last one counts)', () => {
    // Maps built key by key: an object literal cannot repeat a key.
    const map = (...pairs: [string, unknown][]): Uint8Array => {
      const parts = pairs.flatMap(([k, v]) => [encode(k), encode(v, { useBigInt64: true })]);
      return Buffer.concat([Buffer.from([0x80 | pairs.length]), ...parts]);
    };
    const h = (i: number): bigint => 0xfedcba9876543210n - BigInt(i) * 7919n;
    const stored = (...middle: [string, unknown][]): Uint8Array =>
      map(
        ['type', 'BlockStored'],
        ...middle,
        ['token_ids', [1, 300, 70000]],
        ['block_size', 16],
        ['medium', 'GPU'],
      );
    const events = [
      stored(['block_hashes', [h(1), h(2)]], ['parent_block_hash', h(3)]),
      stored(['block_hashes', [h(1)]], ['parent_block_hash', h(3)], ['parent_block_hash', null]),
      stored(['block_hashes', [h(1)]], ['parent_block_hash', null], ['parent_block_hash', h(4)]),
      stored(['block_hashes', [h(1)]], ['parent_block_hash', h(3)], ['parent_block_hash', 5]),
      stored(['block_hashes', [h(1)]], ['parent_block_hash', h(3)], ['block_hashes', [h(6)]]),
      stored(['parent_block_hash', h(3)], ['block_hashes', [h(7), h(8)]]),
      map(['type', 'BlockRemoved'], ['block_hashes', [h(9)]], ['parent_block_hash', h(3)]),
      stored(['block_hashes', [h(1)]], ['lora_id', null], ['parent_block_hash', h(3)]),
    ];
    // Each event alone in a batch (a batch the fast path hands back leaves the others taken),
    // then all in one.
    const batch = (evs: Uint8Array[]): Uint8Array =>
      Buffer.concat([
        Buffer.from([0x93]),
        encode(1767225601.5),
        Buffer.from([0x90 | evs.length]),
        ...evs,
        Buffer.from([0x00]),
      ]);
    const payloads = [...events.map((e) => batch([e])), batch(events)];
    // Twice over: the first pass teaches the exact path's tail cache.
    const r = bothPaths([...payloads, ...payloads], null);
    expect(r.fast).toBe(r.exact);
    expect(r.fast).toContain(`"block_hashes":[${h(6)}],"parent_block_hash":${h(3)},`);
    // Each pass hands back two batches: hashes repeated after a parent, and the batch of all.
    expect(r.taken).toBe(2 * (payloads.length - 2));
  });

  it('hands a batch it does not take back with nothing written', () => {
    const o = memoryOutput();
    const fast = new BatchJsonWriter(o.out, new EventJsonWriter(o.out));
    const bad = Uint8Array.from([
      0x92, 0xcb, 0x41, 0xda, 0x55, 0x2e, 0x00, 0x00, 0x00, 0x00, 0x91, 0x91, 0xa4, 0x4e, 0x6f,
      0x70, 0x65,
    ]);
    expect(fast.write(bad, 1, null)).toBe(-1);
    expect(o.text()).toBe('');
  });
});

/**
 * What a decimal writer puts at offset 3 of a buffer that ends exactly where `want`'s digits do
 * (a 4-byte store past the end would throw), with the bytes before it and the end it returned;
 * '' when all is as it should be. (One expect per value would be most of the test's time.)
 */
function misprint(want: string, write: (v: DataView, p: number) => number): string {
  const buf = new Uint8Array(3 + want.length).fill(0xaa);
  const end = write(viewOf(buf), 3);
  const got = Buffer.from(buf).toString('latin1');
  return got === `\xaa\xaa\xaa${want}` && end === buf.length ? '' : `${want}: ${got} (end ${end})`;
}

describe('writeU64DecimalAt', () => {
  it("writes every u64 as BigInt's toString does: edges, powers of ten and two, 100,000 random", () => {
    const top = 2n ** 64n - 1n;
    const values: bigint[] = [0n, 1n, top, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n];
    for (let k = 0n; k < 64n; k++) values.push(2n ** k - 1n, 2n ** k, 2n ** k + 1n);
    for (let k = 0n; k <= 19n; k++) values.push(10n ** k - 1n, 10n ** k, 10n ** k + 1n);
    let x = 0x9e3779b97f4a7c15n;
    const next = (): bigint => (x = (x * 6364136223846793005n + 1442695040888963407n) & top);
    // Uniform (most engine hashes: 19 or 20 digits), and of every length (shifted right).
    for (let i = 0; i < 100_000; i++) values.push(next(), next() >> BigInt(i % 64));
    // Either side of multiples of 10^8 and 10^16, where the quotients' rounding is corrected.
    for (let i = 0; i < 4_000; i++) {
      const at = next();
      for (const m of [(at / 10n ** 8n) * 10n ** 8n, (at / 10n ** 16n) * 10n ** 16n])
        for (const d of [-2n, -1n, 0n, 1n, 2n]) if (m + d >= 0n && m + d <= top) values.push(m + d);
    }
    const wrong = values
      .map((v) =>
        misprint(v.toString(), (view, p) =>
          writeU64DecimalAt(view, p, Number(v >> 32n), Number(v & 0xffffffffn)),
        ),
      )
      .filter((m) => m !== '');
    expect(values.length).toBeGreaterThan(200_000);
    expect(wrong).toEqual([]);
  });
});

describe('writeUintDecimal', () => {
  it('writes every safe integer as String() does, around each power of ten and 10^8 multiple', () => {
    const values: number[] = [0, Number.MAX_SAFE_INTEGER];
    for (let k = 0; k <= 15; k++) values.push(10 ** k - 1, 10 ** k, 10 ** k + 1);
    let x = 12345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const v = (x * 4194304 + (i % 4194304)) % Number.MAX_SAFE_INTEGER;
      values.push(v, Math.floor(v / 2 ** (i % 53)), Math.floor(v / 1e8) * 1e8 - 1);
    }
    const wrong = values
      .filter((y) => y >= 0)
      .map((v) => misprint(String(v), (view, p) => writeUintDecimalAt(view, p, v)))
      .filter((m) => m !== '');
    expect(wrong).toEqual([]);
    // The byte-array form, which keeps a view of the last buffer it was given.
    const buf = new Uint8Array(20);
    for (const v of [0, 7, 123456789, Number.MAX_SAFE_INTEGER]) {
      const n = writeUintDecimal(buf, 0, v);
      expect(Buffer.from(buf.subarray(0, n)).toString('latin1')).toBe(String(v));
    }
  });
});

describe('writeMicrosDecimal', () => {
  it('writes every time of at most six decimals as String() does, and declines every other', () => {
    const buf = new Uint8Array(32);
    const written = (v: number): string | null => {
      const n = writeMicrosDecimalAt(viewOf(buf), 0, v);
      return n < 0 ? null : Buffer.from(buf.subarray(0, n)).toString('latin1');
    };
    // Epoch seconds to the microsecond (and coarser), small and near 2^32, whole numbers too.
    const taken: number[] = [1, 1.5, 2.000001, 9.999999, 10, 4294967295.999999, 4242424242.25];
    let x = 987654321;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const micros = x % 1_000_000;
      const whole = [1767225601, x, 1 + (x % 1000), 4294967295 - (x % 1000)][i % 4] as number;
      const step = [1, 10, 1000, 100_000, 1_000_000][i % 5] as number;
      // The double nearest to the decimal (whole micros / 10^6 is one correctly rounded division).
      taken.push((whole * 1e6 + micros - (micros % step)) / 1e6);
    }
    for (const v of taken) expect(written(v), String(v)).toBe(String(v));
    // More than six decimals, below 1, from 2^32 up, not finite: String(v) is printed instead.
    const declined = [
      0,
      0.5,
      -1.5,
      1767225601.310731 + 2 ** -22,
      1.0000001,
      Math.PI,
      2 ** 32,
      2 ** 32 + 0.5,
      1e21,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const v of declined) expect(written(v), String(v)).toBeNull();
    // Whatever it takes, it prints as String(v) (doubles of every kind in its range).
    const f = new Float64Array(1);
    const u = new Uint32Array(f.buffer);
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      u[1] = 0x3ff00000 + (x % 0x1f00000);
      u[0] = x * 7;
      const v = f[0] as number;
      const w = written(v);
      if (w !== null) expect(w).toBe(String(v));
    }
  });
});
