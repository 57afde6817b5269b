// The event log's ring on the live path: decoded fixture batches, each batch's event lines written
// once as bytes (as LiveSession does: EventLines), then held by the ring (pushBytes). Against the same work holding
// the records themselves in a list of 50,000 (the ring before it held bytes): each held record is
// promoted to V8's old space and collected there. CPU of the whole process (GC helpers included),
// interleaved rounds, fresh rings each round after a warm-up that fills them.

import { EventRing, DEFAULT_RING_SIZE } from '../../electron/model/event-ring';
import { EventLines, readEventLine } from '../../electron/session/event-line';
import { decodeBatch } from '../../electron/wire/decode-batch';
import type { EventRecord } from '../../shared/events';
import { ALL_FIXTURES, readPayloads } from '../support/fixture-frames';
import { median, type BenchResult } from './bench-result';

const WARM = 30_000; // messages: about 83,000 events, the ring full before measuring
const MEASURE = 60_000;
const ROUNDS = 3;

interface Variant {
  name: string;
  /** A fresh holder: takes event i of a batch and the batch's lines. */
  make: () => (rec: EventRecord, lines: EventLines, i: number) => void;
  cpuUs: number[];
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Runs the ring bench: CPU per message with the records held, the lines held as bytes, and neither. */
export function runRingBench(): Promise<BenchResult> {
  const payloads = ALL_FIXTURES.flatMap((f) => readPayloads(f.frames));
  let events = 0;
  let seq = 0;
  const lines = new EventLines();
  /** Decodes message i as a source would and hands each event and the batch's lines on. */
  const message = (
    i: number,
    hold: (rec: EventRecord, lines: EventLines, i: number) => void,
  ): void => {
    seq += 1;
    const r = decodeBatch(payloads[i % payloads.length] as Uint8Array, {}, { source: 'b', seq });
    if (!r.ok || r.ts === null) return;
    lines.clear();
    for (const rec of r.events) lines.add(rec);
    for (let k = 0; k < r.events.length; k++) hold(r.events[k] as EventRecord, lines, k);
    events += r.events.length;
  };
  const variants: Variant[] = [
    {
      name: 'records held in a list (the ring before)',
      cpuUs: [],
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
      cpuUs: [],
      make: () => {
        const ring = new EventRing(DEFAULT_RING_SIZE, { readLine: readEventLine });
        return (rec, b, i) => ring.pushBytes(rec, b.buf, b.lineStart(i), b.lineEnd(i));
      },
    },
    { name: 'nothing held (decode + line only)', cpuUs: [], make: () => () => undefined },
  ];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < variants.length; k += 1) {
      const v = variants[(round + k) % variants.length] as Variant;
      const hold = v.make();
      for (let i = 0; i < WARM; i += 1) message(i, hold);
      events = 0;
      const t0 = cpuNow();
      for (let i = 0; i < MEASURE; i += 1) message(WARM + i, hold);
      v.cpuUs.push((cpuNow() - t0) / MEASURE);
    }
  }
  const [held, bytes, none] = variants.map((v) => median(v.cpuUs)) as [number, number, number];
  const us = (x: number): string => `${x.toFixed(2)} µs`;
  return Promise.resolve({
    title: `Event ring on the live path (${MEASURE} msgs x ${ROUNDS} rounds, fixture payloads, ${DEFAULT_RING_SIZE} events held)`,
    rows: [
      ...variants.map((v): [string, string] => [
        `${v.name}, CPU per message`,
        `${us(median(v.cpuUs))} (rounds ${v.cpuUs.map((x) => x.toFixed(2)).join(' / ')})`,
      ]),
      ['events per message', (events / MEASURE).toFixed(2)],
      ['holding records, past nothing held', us(held - none)],
      ['holding bytes, past nothing held', us(bytes - none)],
    ],
    ratio: bytes / held,
    // The ring of bytes must cost no more than holding the records did.
    budget: 1,
  });
}
