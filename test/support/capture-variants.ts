// A stream that pins `kvscope capture` output byte for byte: vLLM's recorded fixtures, then
// hand-built payloads for every wire variant the decoder takes (map batches, SGLang's rank and
// metadata, bytes and short bytes hashes, every int width up to 2^64 - 1, negative ints,
// odd timestamps, escapes in strings, bad events, undecodable payloads and frames).
import { MsgpackWriter } from '../../electron/sim/msgpack-writer';
import { encodeSeq } from '../../electron/wire/message';
import { ALL_FIXTURES, readPayloads } from './fixture-frames';

/** A float64 on the wire even when the value is integral. */
class F {
  constructor(readonly v: number) {}
}
/** Bytes written as they are (encodings that the writer would not choose). */
class Raw {
  constructor(readonly bytes: readonly number[]) {}
}
type V =
  null | boolean | number | bigint | string | Uint8Array | F | Raw | V[] | { [k: string]: V };

/** The bytes one call on a fresh writer produces (scalars and container headers). */
function one(put: (w: MsgpackWriter) => void): Uint8Array {
  const w = new MsgpackWriter(16);
  put(w);
  return w.bytes();
}

function encodeInto(v: V, out: number[]): void {
  if (v instanceof Raw) out.push(...v.bytes);
  else if (Array.isArray(v)) {
    out.push(...one((w) => w.array(v.length)));
    for (const x of v) encodeInto(x, out);
  } else if (
    v !== null &&
    typeof v === 'object' &&
    !(v instanceof Uint8Array) &&
    !(v instanceof F)
  ) {
    const entries = Object.entries(v);
    out.push(...one((w) => w.map(entries.length)));
    for (const [k, x] of entries) {
      encodeInto(k, out);
      encodeInto(x, out);
    }
  } else out.push(...one((w) => scalar(w, v)));
}

function scalar(
  w: MsgpackWriter,
  v: null | boolean | number | bigint | string | Uint8Array | F,
): void {
  if (v === null) w.nil();
  else if (typeof v === 'boolean') w.bool(v);
  else if (typeof v === 'number' || typeof v === 'bigint') w.int(v);
  else if (typeof v === 'string') w.str(v);
  else if (v instanceof F) w.float64(v.v);
  else w.bin(v);
}

/** Msgpack bytes of `v`. */
function encode(v: V): Uint8Array {
  const out: number[] = [];
  encodeInto(v, out);
  return Uint8Array.from(out);
}

const bin = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const digest = (seed: number): Uint8Array =>
  Uint8Array.from({ length: 32 }, (_, i) => (seed * 37 + i * 11) & 0xff);
const tokens = (n: number): number[] => Array.from({ length: n }, (_, i) => 1000 + i * 7);

const WIDTHS: bigint[] = [
  0n,
  127n,
  128n,
  255n,
  256n,
  65535n,
  65536n,
  4294967295n,
  4294967296n,
  9007199254740991n,
  9007199254740992n,
  9007199254740993n,
  9223372036854775807n,
  9223372036854775808n,
  18446744073709551615n,
];
const NEGATIVES: bigint[] = [
  -1n,
  -32n,
  -33n,
  -128n,
  -129n,
  -32768n,
  -32769n,
  -2147483648n,
  -2147483649n,
  -9223372036854775808n,
];

const payloads = (): (V | Uint8Array)[] => [
  // A map batch with tagged-map events in any key order, unknown fields, bytes hashes.
  {
    ts: new F(1767225600.125),
    events: [
      {
        type: 'BlockStored',
        block_hashes: [digest(1), digest(2)],
        parent_block_hash: digest(3),
        token_ids: tokens(32),
        block_size: 16,
        lora_id: null,
        medium: 'GPU',
        lora_name: null,
        extra_keys: null,
        locality: 'LOCAL',
        event_version: 2,
      },
      { block_hashes: [digest(1)], type: 'BlockRemoved', medium: 'CPU', ownership: 'tier-2' },
      { type: 'AllBlocksCleared', medium: 'GPU' },
      {
        type: 'BlockStored',
        block_hashes: WIDTHS,
        parent_block_hash: 18446744073709551615n,
        token_ids: [],
        block_size: 1,
        session_id: 'sess-secret',
        metadata: { cache_salt: 'salt-secret' },
        extra_keys: [null, ['mm-secret', 3], null],
      },
    ],
    data_parallel_rank: 1,
  },
  // SGLang: a map batch naming the rank attn_dp_rank, positional events, metadata at 7.
  {
    events: [
      [
        'BlockStored',
        NEGATIVES,
        -5n,
        tokens(48),
        32,
        -7,
        'CPU_PINNED',
        { cache_salt: 'sglang-secret' },
        null,
        2,
        'sliding_window',
        4096,
      ],
      ['BlockRemoved', [1n, 2n], 'DISK', 0],
      ['AllBlocksCleared'],
    ],
    ts: 17,
    attn_dp_rank: 3,
  },
  // Odd timestamps, each on its own batch.
  [new F(NaN), [['BlockRemoved', [5n]]]],
  [new F(Infinity), [['BlockRemoved', [6n]]], 0],
  [new F(-0), [['BlockRemoved', [7n]]], null],
  [new F(1e21), [['BlockRemoved', [8n]]]],
  [new F(0.1 + 0.2), [['BlockRemoved', [9n]]]],
  [new F(5e-324), [['BlockRemoved', [10n]]]],
  [new Raw([0xca, 0x3f, 0xc0, 0x00, 0x00]), [['BlockRemoved', [11n]]]],
  [-42, [['BlockRemoved', [12n]]]],
  // Strings that need escaping, and one past the short-string path.
  [
    new F(1767225601.5),
    [
      [
        'BlockStored',
        [13n],
        null,
        tokens(16),
        16,
        null,
        'GPU "quoted" \\ back',
        'lora/é名\n\u0001\u2028😀',
        null,
      ],
      ['BlockRemoved', [13n], 'a-medium-name-longer-than-24-bytes', 7],
      ['BlockStored', [14n], 13n, tokens(3), 16, 12, null, null, [null, 'x'], null, null, 0],
    ],
    0,
  ],
  // One batch with bad events among good ones: the good ones print, the bad ones go to stderr.
  [
    new F(1767225602.25),
    [
      ['BlockStored', [1n]],
      ['Nope', 1],
      42,
      ['BlockRemoved', ['x']],
      ['BlockStored', [15n], null, tokens(2), 0],
      ['BlockStored', [16n], null, tokens(2), 16, new Raw([0xcf, 0, 0, 0, 1, 0, 0, 0, 0])],
      ['BlockRemoved', [17n]],
    ],
    0,
  ],
  // Undecodable payloads.
  bin(0xc1, 1, 2, 3),
  encode([new F(1.5), [], 0]).slice(0, 5),
  Uint8Array.from([...encode([new F(1.5), [['AllBlocksCleared']], 0]), 0x00]),
  encode({ events: [] }),
  encode('not a batch'),
  // Nothing to print, then extra positional fields.
  [new F(1767225603), []],
  [
    new F(1767225603.75),
    [
      ['BlockRemoved', [18n], 'GPU', 1, 'extra'],
      { type: 'AllBlocksCleared', medium: null, surprise: [1, 2] },
    ],
    0,
    'batch-extra',
  ],
  // Many hashes (array16), bytes hashes of odd lengths (short all-digit ones included).
  [
    new F(1767225604),
    [
      [
        'BlockStored',
        Array.from({ length: 300 }, (_, i) => BigInt(i) * 61_000_000_000_000_017n),
        null,
        tokens(4800),
        16,
      ],
      [
        'BlockRemoved',
        [
          bin(0x12, 0x34),
          bin(0x00, 0x12),
          bin(),
          bin(1, 2, 3, 4, 5, 6, 7, 8),
          bin(0x98, 0x76, 0x54, 0x32, 0x10),
        ],
      ],
      [
        'BlockRemoved',
        [
          new Raw([0xcf, 0, 0, 0, 0, 0, 0, 0, 5]),
          new Raw([0xd3, 0, 0, 0, 0, 0, 0, 1, 0]),
          new Raw([0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]),
          new Raw([0xd0, 0x85]),
          new Raw([0xd1, 0x00, 0x05]),
        ],
      ],
    ],
    5,
  ],
  // A map batch with a batch-level unknown field and a nil rank.
  {
    ts: new F(1767225605.5),
    events: [['AllBlocksCleared', 'CPU']],
    data_parallel_rank: null,
    x: 1,
  },
  // Today's fields on map events: every medium, locality, ownership as a word and as an int,
  // proposed fields (kept as drift), a LoRA, a sliding window, a large rank.
  [
    new F(1767225606.0625),
    [
      ...['GPU', 'CPU', 'STORAGE', 'CPU_PINNED', 'DISK', 'EXTERNAL', 'FS', 'OBJ'].map(
        (medium, i): V => ({
          type: 'BlockStored',
          block_hashes: [BigInt(i) * 2_305_843_009_213_693_951n + 1n, 9_007_199_254_740_993n],
          parent_block_hash: i % 2 === 0 ? null : 18_446_744_073_709_551_000n + BigInt(i),
          token_ids: tokens(32),
          block_size: 16,
          lora_id: i === 3 ? 7 : null,
          medium,
          lora_name: i === 3 ? 'adapter-7' : null,
          extra_keys: null,
          group_idx: i % 3,
          kv_cache_spec_kind: i === 4 ? 'sliding_window' : 'full_attention',
          kv_cache_spec_sliding_window: i === 4 ? 1024 : null,
          locality: i % 2 === 0 ? 'LOCAL' : 'REMOTE',
          ...(i === 5 ? { ownership: 3 } : i === 6 ? { ownership: 'tier-1' } : {}),
          ...(i === 7 ? { origin: 'REUSED', ownership: { id: 1 } } : {}),
        }),
      ),
      {
        type: 'BlockRemoved',
        block_hashes: [2_305_843_009_213_693_952n, digest(9)],
        medium: 'STORAGE',
        locality: 'REMOTE',
        ownership: 'tier-1',
        remaining_copy_counts: [1, 0],
      },
      { type: 'BlockRemoved', block_hashes: [1n], medium: 'EXTERNAL', group_idx: 3 },
      { type: 'AllBlocksCleared', medium: 'CPU_PINNED' },
    ],
    200,
  ],
  // More distinct BlockStored tails than a writer keeps (block sizes 1..12), twice over.
  [
    new F(1767225607.25),
    [
      ...Array.from({ length: 24 }, (_, i): V => [
        'BlockStored',
        [BigInt(100 + i)],
        99n,
        tokens(2),
        1 + (i % 12),
        null,
        'GPU',
      ]),
    ],
    0,
  ],
  // A two-entry batch (no rank) with a u64 ts, and a positional batch with an int ts.
  [new Raw([0xcf, 0, 0, 0, 0, 0x69, 0x55, 0xb9, 0x00]), [['BlockRemoved', [19n], 'CPU']]],
  [1767225608, [['BlockStored', [20n, 21n], 19n, tokens(16), 16, null, 'GPU', null, null, 0]], 1],
];

/** The batch whose ts marks the end of the stream (every consumer prints its ts). */
export const SENTINEL_TS = 4242424242.25;
export const sentinelPayload = (): Uint8Array =>
  encode([new F(SENTINEL_TS), [['AllBlocksCleared']]]);

/**
 * Every message of the pinned stream, in order: the fixtures (seq 0..479), the variants, one
 * message of two frames (no seq), and the sentinel batch last.
 */
export function captureVariantMessages(): Uint8Array[][] {
  const topic = new TextEncoder().encode('kv-events');
  const out: Uint8Array[][] = [];
  let seq = 0n;
  const push = (payload: Uint8Array): void => void out.push([topic, encodeSeq(seq++), payload]);
  for (const f of ALL_FIXTURES) for (const p of readPayloads(f.frames)) push(p);
  const variants = payloads();
  variants.forEach((v, i) => {
    push(v instanceof Uint8Array ? v : encode(v));
    if (i === 3) out.push([topic, encode([new F(1), [['AllBlocksCleared']]])]);
  });
  push(sentinelPayload());
  return out;
}
