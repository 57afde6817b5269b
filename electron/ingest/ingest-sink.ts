// Where a source delivers what it decoded, in seq order per source.
import type {
  EventErrorRecord,
  EventRecord,
  GapRecord,
  ResetRecord,
  UndecodedRecord,
} from '../../shared/events';

/** The batch a group of records came from. */
export interface BatchMeta {
  source: string;
  seq: number;
  ts: number;
  dpRank: number | null;
}

/** Receives one source's redacted stream. Calls arrive in seq order for that source. */
export interface IngestSink {
  batch(records: EventRecord[], meta: BatchMeta): void;
  undecoded(u: UndecodedRecord): void;
  eventError(e: EventErrorRecord): void;
  gap(g: GapRecord): void;
  reset(r: ResetRecord): void;
}
