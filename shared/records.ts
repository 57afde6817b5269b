// The one unit that flows from a source to the recording, the model and the analysis, live and
// when a session or a capture is replayed. A new kind is added here; the compiler finds the rest.

import type {
  EventErrorRecord,
  EventRecord,
  GapRecord,
  ResetRecord,
  UndecodedRecord,
} from './events';

/** The batch a group of event records came from. */
export interface BatchMeta {
  source: string;
  seq: number;
  ts: number;
  dpRank: number | null;
}

/** Everything a source delivers, in seq order per source. */
export type IngestRecord =
  | { k: 'batch'; meta: BatchMeta; events: EventRecord[] }
  | { k: 'gap'; rec: GapRecord }
  | { k: 'reset'; rec: ResetRecord }
  | { k: 'undecoded'; rec: UndecodedRecord }
  | { k: 'event-error'; rec: EventErrorRecord };

export type IngestRecordKind = IngestRecord['k'];

/** Receives one source's redacted stream, one record at a time, in seq order for that source. */
export interface IngestSink {
  record(r: IngestRecord): void;
  /**
   * The source's clock is `seconds` (whole) off the receiver's, measured where its first batch
   * (after a start or a restart) arrived, and again, lower, where a later one shows that the first
   * waited in a queue; 0: within CLOCK_OFFSET_MIN_S. Said before the batch it was measured at is
   * recorded. Sinks without charts need not listen.
   */
  clockOffset?(source: string, seconds: number): void;
}

/** A source's clock this many seconds or more off the receiver's is charted with its offset. */
export const CLOCK_OFFSET_MIN_S = 2;

/** The default branch of an exhaustive switch: a compile error when a case is missing. */
export function missingCase(x: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(x)}`);
}
