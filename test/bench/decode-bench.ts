// Decoding cost against a bare msgpack decode of the same payloads (budget: at most 25% more).
// The baseline that matters keeps hashes exact (useBigInt64); the default-options decode, which
// rounds u64 hashes, is shown for reference only.

import { Decoder } from '@msgpack/msgpack';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { median, type BenchResult } from './bench-result';

const TARGET_BYTES = 50 * 1024 * 1024;
const ROUNDS = 5;

interface Variant {
  name: string;
  /** Decodes every payload once; returns the number of events seen (keeps the work alive). */
  pass: (payloads: readonly Uint8Array[]) => number;
  times: number[];
}

/** Runs the decode benchmark on the vLLM fixtures and reports MB/s, events/s and the ratio. */
export async function runDecodeBench(): Promise<BenchResult> {
  const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
  const bytesPerPass = payloads.reduce((s, p) => s + p.byteLength, 0);
  const passes = Math.max(1, Math.round(TARGET_BYTES / bytesPerPass));
  const exact = new Decoder({ useBigInt64: true });
  const lossy = new Decoder();

  const bare = (d: Decoder) => (ps: readonly Uint8Array[]) => {
    let n = 0;
    for (const p of ps) n += ((d.decode(p) as [number, unknown[]])[1] ?? []).length;
    return n;
  };
  const variants: Variant[] = [
    {
      name: 'decodeBatch',
      times: [],
      pass: (ps) => {
        let n = 0;
        for (const p of ps) {
          const r = decodeBatch(p);
          if (r.ok) n += r.events.length;
        }
        return n;
      },
    },
    { name: 'msgpack decode, useBigInt64', times: [], pass: bare(exact) },
    { name: 'msgpack decode, default options', times: [], pass: bare(lossy) },
  ];

  let eventsPerPass = 0;
  for (const v of variants) eventsPerPass = v.pass(payloads); // warm-up (JIT)
  for (let round = 0; round < ROUNDS; round++) {
    // Interleave pass by pass (rotating the order) so a load swing on this shared machine hits
    // every variant alike; each variant's round time is the sum of its passes.
    const spent = variants.map(() => 0);
    const seen = variants.map(() => 0);
    for (let i = 0; i < passes; i++) {
      for (let k = 0; k < variants.length; k++) {
        const at = (i + round + k) % variants.length;
        const t0 = process.hrtime.bigint();
        seen[at] = (seen[at] as number) + (variants[at] as Variant).pass(payloads);
        spent[at] = (spent[at] as number) + Number(process.hrtime.bigint() - t0) / 1e9;
      }
    }
    variants.forEach((v, at) => {
      if (seen[at] !== eventsPerPass * passes) throw new Error(`${v.name} saw ${seen[at]} events`);
      v.times.push(spent[at] as number);
    });
    await new Promise((resolve) => setImmediate(resolve));
  }

  const totalBytes = bytesPerPass * passes;
  const totalEvents = eventsPerPass * passes;
  const rows: [string, string][] = [
    ['payloads', `${payloads.length} × ${passes} passes = ${(totalBytes / 1e6).toFixed(1)} MB`],
  ];
  for (const v of variants) {
    const t = median(v.times);
    rows.push([`${v.name}: MB/s`, (totalBytes / 1e6 / t).toFixed(1)]);
    rows.push([`${v.name}: events/s`, Math.round(totalEvents / t).toLocaleString('en-US')]);
  }
  const ours = median((variants[0] as Variant).times);
  const base = median((variants[1] as Variant).times);
  rows.push(['median of rounds', String(ROUNDS)]);
  return {
    title: 'Wire decode vs a bare msgpack decode (vLLM fixtures)',
    rows,
    ratio: ours / base,
    budget: 1.25,
  };
}
