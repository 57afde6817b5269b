// The event log's ring on the live path: decoded fixture batches, each batch's event lines written
// once as bytes (as LiveSession does: EventLines), then held by the ring (pushBytes). Against the same work holding
// the records themselves in a list of 50,000 (the ring before it held bytes): each held record is
// promoted to V8's old space and collected there. CPU of the whole process (GC helpers included).
//
// Each round of each variant runs in a fresh child of this bundle, the variants interleaved: run in
// one process, the three shared the decoder's type feedback, and which one the JIT settled for
// moved a round's figure by up to 3x (decode + line alone read 7.5 µs in one run, 3.1 in the next).

import { spawn } from 'node:child_process';
import { EventRing, DEFAULT_RING_SIZE } from '../../electron/model/event-ring';
import { EventLines, readEventLine } from '../../electron/session/event-line';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { EventRecord } from '../../shared/events';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { median, type BenchResult } from './bench-result';

const WARM = 30_000; // messages: about 83,000 events, the ring full before measuring
const MEASURE = 60_000;
const ROUNDS = 5;
/** The argument that makes the bench bundle run one round of one variant (see ringChild). */
export const RING_CHILD_FLAG = '--ring-child';

type Hold = (rec: EventRecord, lines: EventLines, i: number) => void;

interface Variant {
  name: string;
  /** A fresh holder: takes event i of a batch and the batch's lines. */
  make: () => Hold;
}

const VARIANTS: Variant[] = [
  {
    name: 'records held in a list (the ring before)',
    make: () => {
      const rows = new Array<EventRecord | undefined>(DEFAULT_RING_SIZE);
      let next = 0;
      return (rec) => {
        rows[next] = rec;
        next = (next + 1) % DEFAULT_RING_SIZE;
      };
    },
  },
  {
    name: 'lines held as bytes (EventRing)',
    make: () => {
      const ring = new EventRing(DEFAULT_RING_SIZE, { readLine: readEventLine });
      return (rec, b, i) => ring.pushBytes(rec, b.buf, b.lineStart(i), b.lineEnd(i));
    },
  },
  { name: 'nothing held (decode + line only)', make: () => () => undefined },
];

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** One round of variant `index` in this process: prints its CPU per message and events per message. */
export function ringChild(index: number): void {
  const variant = VARIANTS[index];
  if (variant === undefined) throw new Error(`no ring variant ${index}`);
  const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
  const lines = new EventLines();
  const hold = variant.make();
  let events = 0;
  /** Decodes message i as a source would and hands each event and the batch's lines on. */
  const message = (i: number): void => {
    const r = decodeBatch(payloads[i % payloads.length] as Uint8Array, {}, { source: 'b', seq: i });
    if (!r.ok || r.ts === null) return;
    lines.clear();
    for (const rec of r.events) lines.add(rec);
    for (let k = 0; k < r.events.length; k++) hold(r.events[k] as EventRecord, lines, k);
    events += r.events.length;
  };
  for (let i = 0; i < WARM; i += 1) message(i);
  events = 0;
  const t0 = cpuNow();
  for (let i = 0; i < MEASURE; i += 1) message(WARM + i);
  const cpuUs = (cpuNow() - t0) / MEASURE;
  process.stdout.write(`${JSON.stringify({ cpuUs, eventsPerMessage: events / MEASURE })}\n`);
}

/** Runs one round of a variant in a child; its CPU per message and events per message. */
async function round(index: number): Promise<{ cpuUs: number; eventsPerMessage: number }> {
  const child = spawn(process.execPath, [process.argv[1] as string, RING_CHILD_FLAG, `${index}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`ring variant ${index} exited with ${code}`);
  return JSON.parse(out) as { cpuUs: number; eventsPerMessage: number };
}

/** Runs the ring bench: CPU per message with the records held, the lines held as bytes, and neither. */
export async function runRingBench(): Promise<BenchResult> {
  const cpuUs: number[][] = VARIANTS.map(() => []);
  let eventsPerMessage = 0;
  for (let r = 0; r < ROUNDS; r += 1) {
    for (let k = 0; k < VARIANTS.length; k += 1) {
      const index = (r + k) % VARIANTS.length;
      const result = await round(index);
      cpuUs[index]?.push(result.cpuUs);
      eventsPerMessage = result.eventsPerMessage;
    }
  }
  const [held, bytes, none] = cpuUs.map(median) as [number, number, number];
  const us = (x: number): string => `${x.toFixed(2)} µs`;
  return {
    title: `Event ring on the live path (${MEASURE} msgs x ${ROUNDS} rounds, each in a process of its own; fixture payloads, ${DEFAULT_RING_SIZE} events held)`,
    rows: [
      ...VARIANTS.map((v, i): [string, string] => [
        `${v.name}, CPU per message`,
        `${us(median(cpuUs[i] ?? []))} (rounds ${(cpuUs[i] ?? []).map((x) => x.toFixed(2)).join(' / ')})`,
      ]),
      ['events per message', eventsPerMessage.toFixed(2)],
      ['holding records, past nothing held', us(held - none)],
      ['holding bytes, past nothing held', us(bytes - none)],
    ],
    ratio: bytes / held,
    // The ring of bytes must cost no more than holding the records did.
    budget: 1,
  };
}
