// The event log's ring on the live path: decoded fixture batches, each batch's event lines written
// once as bytes (as LiveSession does: EventLines), then held by the ring (pushBytes). Against the same work holding
// the records themselves in a list of 50,000 (the ring before it held bytes): each held record is
// promoted to V8's old space and collected there. CPU of the whole process (GC helpers included),
// each round of each variant in a child of its own (child-rounds.ts).

import { EventRing, DEFAULT_RING_SIZE } from '../../electron/model/event-ring';
import { EventLines, readEventLine } from '../../electron/session/event-line';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { EventRecord } from '../../shared/events';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { median, type BenchResult } from './bench-result';
import { childRounds } from './child-rounds';

const WARM = 30_000; // messages: about 83,000 events, the ring full before measuring
const MEASURE = 60_000;
const ROUNDS = 5;

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

interface RingRound {
  cpuUs: number;
  eventsPerMessage: number;
}

/** One round of variant `index`, in a child: its CPU per message and events per message. */
export function ringRound(index: number): RingRound {
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
  return { cpuUs: (cpuNow() - t0) / MEASURE, eventsPerMessage: events / MEASURE };
}

/** Runs the ring bench: CPU per message with the records held, the lines held as bytes, and neither. */
export async function runRingBench(): Promise<BenchResult> {
  const rounds = await childRounds<RingRound>('ring', VARIANTS.length, ROUNDS);
  const cpuUs = rounds.map((rs) => rs.map((r) => r.cpuUs));
  const eventsPerMessage = rounds[0]?.[0]?.eventsPerMessage ?? 0;
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
