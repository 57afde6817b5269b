// An event line whose seq is past 2^53 - 1, read as a live frame of that seq is (KvSource's
// onBadSeq): its batch is not applied, and it counts once as one undecoded record, never as an
// event, a duplicate or a skipped line. A file has no frames: the consecutive event lines of one
// (source, seq) are its batch, so they make one record, their bytes summed.

import type { UndecodedRecord } from '../../shared/events';
import type { Problems } from './problems';

/** The undecoded record's error, worded as the live source words a seq out of reach. */
export function outOfReachError(seq: string): string {
  return `SeqError: seq ${seq} is out of reach (past 2^53 - 1, the largest seq kept exact): a garbled line or another publisher's batch; its batch is not applied`;
}

/** Gathers the lines of out-of-reach batches into one undecoded record per batch. */
export class OutOfReachBatches {
  private open: UndecodedRecord | null = null;
  private openSeq = '';

  constructor(
    private readonly problems: Problems,
    private readonly deliver: (rec: UndecodedRecord) => void,
  ) {}

  /**
   * One event line of `source` whose seq (as its exact digits) is out of reach: the first of its
   * batch opens the record and its problem line, the rest add their bytes.
   */
  line(source: string, seq: string, bytes: number, at: number, lineNo: number): void {
    const o = this.open;
    if (o !== null && o.source === source && this.openSeq === seq) {
      o.bytes += bytes;
      return;
    }
    this.flush();
    this.open = { source, seq: null, bytes, error: outOfReachError(seq), at };
    this.openSeq = seq;
    this.problems.add(
      `line ${lineNo}: seq ${seq} is out of reach (past 2^53 - 1, the largest seq kept exact): its batch is not applied, counted as undecoded as live`,
    );
  }

  /** Delivers the open batch's record: call before any other record, and at the end. */
  flush(): void {
    const o = this.open;
    if (o === null) return;
    this.open = null;
    this.deliver(o);
  }
}
