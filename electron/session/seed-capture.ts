// Importing JSONL captures: the seed script's `kv_events_subscriber.py --json` (bare integer
// hashes, ts, type, fields) and `kvscope capture --json` (the same plus seq and dp_rank, byte
// hashes as hex strings). Long integers are read losslessly; prompt content (token_ids,
// extra_keys, metadata, session_id values) is reduced to counts and never kept.

import {
  INT32_MAX,
  INT32_MIN,
  MAX_DP_RANK,
  MAX_GROUP_IDX,
  MAX_WINDOW,
  eventTimeProblem,
} from '../../shared/event-bounds';
import type { EventRecord, HashKey, KvEvent } from '../../shared/events';
import { SESSION_FORMAT, type SessionRecord } from './format';
import { MAX_LINE_BYTES, readLines, type SessionInput } from './line-reader';
import { parseLossless } from './lossless-json';
import { OutOfReachBatches } from './out-of-reach-seq';
import { duplicateProblem, endProblems, longLineProblem, Problems, quoteValue } from './problems';
import {
  BadLine,
  blockSizeField,
  captureHash,
  countField,
  intField,
  labelField,
  placementFields,
  SeqOutOfReach,
  seqField,
  tsField,
} from './record-fields';
import { CaptureGaps } from './capture-gaps';
import { SeqDedup } from './seq-dedup';

export interface CaptureReadResult {
  problems: string[];
  events: number;
  undecoded: number;
  skippedLines: number;
  /** Events kept as event errors (a ts that is not usable), as live. */
  eventErrors: number;
  /** Event lines of a batch already read (a given seq seen before): counted, not delivered. */
  duplicates: number;
  /** Events whose token_ids were dropped (only their count is kept). */
  tokenIdsDropped: number;
  /** Jumps in a source's seqs (gap records): batches that came late recovered, the others lost. */
  gaps: number;
  lostBatches: number;
  /** Batches that came after later seqs of their source, into a gap: applied where they came. */
  lateBatches: number;
  sources: string[];
}

type Obj = Record<string, unknown>;

function hashList(v: unknown): HashKey[] {
  if (!Array.isArray(v)) throw new BadLine('block_hashes is not a list');
  return v.map((h: unknown) => captureHash(h, 'block hash'));
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const present = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (Array.isArray(v)) return v.filter((x) => x !== null).length;
  if (typeof v === 'object') return Object.keys(v).length;
  return 1;
};

/** A redacted event from one capture line; throws BadLine when it is not one. */
function captureEvent(o: Obj): KvEvent {
  if (o.type === 'BlockStored') {
    const block_hashes = hashList(o.block_hashes);
    const parent =
      o.parent_block_hash === null || o.parent_block_hash === undefined
        ? null
        : captureHash(o.parent_block_hash, 'parent_block_hash');
    const tokenIds = Array.isArray(o.token_ids) ? o.token_ids.length : null;
    // SGLang puts a metadata map where vLLM has lora_name: tell them apart by type.
    const loraIsMap = typeof o.lora_name === 'object' && o.lora_name !== null;
    return {
      type: 'BlockStored',
      block_hashes,
      parent_block_hash: parent,
      token_count:
        o.token_count === undefined || o.token_count === null
          ? (tokenIds ?? 0)
          : countField(o.token_count, 'token_count'),
      block_size: blockSizeField(o.block_size),
      lora_id: intField(o.lora_id, 'lora_id', INT32_MIN, INT32_MAX),
      medium: labelField(o.medium, 'medium'),
      lora_name: loraIsMap ? null : str(o.lora_name),
      extra_keys_count:
        o.extra_keys_count === undefined
          ? present(o.extra_keys)
          : countField(o.extra_keys_count, 'extra_keys_count'),
      group_idx: intField(o.group_idx, 'group_idx', 0, MAX_GROUP_IDX),
      kv_cache_spec_kind: labelField(o.kv_cache_spec_kind, 'kv_cache_spec_kind'),
      kv_cache_spec_sliding_window: intField(
        o.kv_cache_spec_sliding_window,
        'kv_cache_spec_sliding_window',
        0,
        MAX_WINDOW,
      ),
      metadata_count:
        o.metadata_count === undefined
          ? present(o.metadata) + (loraIsMap ? present(o.lora_name) : 0) + present(o.cache_salt)
          : countField(o.metadata_count, 'metadata_count'),
      session_id_count:
        o.session_id_count === undefined
          ? present(o.session_id) > 0
            ? 1
            : 0
          : countField(o.session_id_count, 'session_id_count'),

      ...placementFields(o),
    };
  }
  if (o.type === 'BlockRemoved') {
    return {
      type: 'BlockRemoved',
      block_hashes: hashList(o.block_hashes),
      medium: labelField(o.medium, 'medium'),
      group_idx: intField(o.group_idx, 'group_idx', 0, MAX_GROUP_IDX),
      ...placementFields(o),
    };
  }
  if (o.type === 'AllBlocksCleared')
    return { type: 'AllBlocksCleared', medium: labelField(o.medium, 'medium') };
  throw new BadLine(`unknown event type ${quoteValue(o.type)}`);
}

/** Stream a JSONL capture's events (and UNDECODED lines) to onRecord as session records. */
export async function importSeedCapture(
  input: SessionInput,
  onRecord: (r: SessionRecord) => void,
  opts: { source?: string; onProgress?: (fraction: number) => void } = {},
): Promise<CaptureReadResult> {
  const base = opts.source ?? 'capture';
  const problems = new Problems();
  const res: CaptureReadResult = {
    problems: [],
    events: 0,
    undecoded: 0,
    skippedLines: 0,
    eventErrors: 0,
    duplicates: 0,
    tokenIdsDropped: 0,
    gaps: 0,
    lostBatches: 0,
    lateBatches: 0,
    sources: [],
  };
  const sources = new Set<string>();
  const dedup = new SeqDedup();
  let synthSeq = -1;
  let lastTs: number | null = null;
  let lastKey = '';
  let idx = 0;
  const outOfReach = new OutOfReachBatches(problems, (rec) => {
    res.undecoded += 1;
    onRecord({ k: 'undecoded', rec });
  });
  const skip = (p: string): void => {
    res.skippedLines += 1;
    problems.add(p);
  };
  // Per source, the highest seq a line gave (an event's or an undecoded batch's). A capture holds
  // every batch it took, replayed ones included, so seqs it skips are batches it lost (a consumer
  // that fell behind, a gap replay could not fill): a gap, as the sequencer made of them live,
  // unless they come later in the file (capture-gaps.ts). Engines publish no empty batch, so a
  // missing seq is no batch without events.
  const highest = new Map<string, number>();
  /**
   * Per source, the latest event time of its events delivered: where a gap's lost stretch begins,
   * as the model takes it from the batches it applied when the gap comes at once.
   */
  const appliedTs = new Map<string, number>();
  let lossyGaps = 0;
  const gaps = new CaptureGaps((rec) => {
    res.gaps += 1;
    res.lostBatches += rec.lost;
    if (rec.lost > 0) lossyGaps += 1;
    onRecord({ k: 'gap', rec });
  });
  const noteSeq = (source: string, seq: number, at: number, restart = false): void => {
    const before = highest.get(source);
    // A new run counts from 0: one whose first batches the capture missed has a gap, as live.
    const from = restart ? 0 : before === undefined ? seq : before + 1;
    // A batch read out of place before (a line moved earlier) is no batch missing.
    let to = seq - 1;
    while (to >= from && dedup.readOutOfPlace(source, to)) to -= 1;
    if (to >= from) gaps.missing(source, from, to, at, appliedTs.get(source) ?? null);
    else if (before !== undefined && seq < before && gaps.came(source, seq)) res.lateBatches += 1;
    if (restart || before === undefined || seq > before) {
      highest.set(source, seq);
      gaps.passed(source, seq);
    }
  };
  const readLine = (o: Obj, line: string, lineNo: number): void => {
    if (lineNo === 1 && o.format === SESSION_FORMAT) {
      throw new Error(
        'this is a KV Scope session, not a capture: open it with Open session, or `--open` on the command line (kvscope analyze reads either)',
      );
    }
    const rank = intField(o.dp_rank, 'dp_rank', 0, MAX_DP_RANK);
    const source = rank !== null && rank > 0 ? `${base}#${rank}` : base;
    let givenSeq: number | null;
    try {
      givenSeq = o.seq === undefined || o.seq === null ? null : seqField(o.seq);
    } catch (e) {
      if (!(e instanceof SeqOutOfReach) || o.type === 'UNDECODED') throw e;
      sources.add(source);
      const at = typeof o.ts === 'number' && eventTimeProblem(o.ts) === null ? o.ts : (lastTs ?? 0);
      outOfReach.line(source, e.seq, Buffer.byteLength(line), at, lineNo);
      return;
    }
    outOfReach.flush();
    if (o.type === 'UNDECODED') {
      const at = o.ts === undefined || o.ts === null ? null : tsField(o.ts);
      sources.add(source);
      res.undecoded += 1;
      const rec = {
        source,
        seq: givenSeq,
        bytes: countField(o.bytes, 'bytes'),
        error: str(o.error) ?? 'undecoded',
        at: at !== null && 'ts' in at ? at.ts : (lastTs ?? 0),
      };
      if (givenSeq !== null) noteSeq(source, givenSeq, rec.at);
      onRecord({ k: 'undecoded', rec });
      return;
    }
    if (o.type === 'EVENT_ERROR') {
      // `capture --json`'s line of an event that could not be decoded: its batch's seq arrived.
      if (givenSeq === null) throw new BadLine('EVENT_ERROR line without a seq');
      sources.add(source);
      noteSeq(source, givenSeq, lastTs ?? 0);
      res.eventErrors += 1;
      const rec = {
        source,
        seq: givenSeq,
        idx: o.idx === undefined || o.idx === null ? 0 : countField(o.idx, 'idx'),
        error: str(o.error) ?? 'event error',
      };
      onRecord({ k: 'event-error', rec });
      return;
    }
    if (o.ts === undefined) throw new BadLine('event without a numeric ts');
    const time = tsField(o.ts);
    const event = 'ts' in time ? captureEvent(o) : null;
    sources.add(source);
    if (Array.isArray(o.token_ids)) res.tokenIdsDropped += 1;
    // Events of one batch share a seq (given) or a ts (seed captures carry no seq).
    const key = `${source}\u0000${givenSeq ?? ''}\u0000${givenSeq === null ? String(o.ts) : ''}`;
    if (key !== lastKey) {
      synthSeq += 1;
      idx = 0;
      lastKey = key;
    }
    const seq = givenSeq ?? synthSeq;
    const givenIdx = o.idx === undefined || o.idx === null ? null : countField(o.idx, 'idx');
    const eventIdx = givenIdx ?? idx;
    idx += 1;
    if ('error' in time || event === null) {
      if (givenSeq !== null) noteSeq(source, givenSeq, lastTs ?? 0);
      const why = 'error' in time ? time.error : 'batch ts is not usable';
      problems.add(`line ${lineNo}: ${why} (kept as an event error)`);
      res.eventErrors += 1;
      const error = `EventTimeError: ${why}`;
      onRecord({ k: 'event-error', rec: { source, seq, idx: eventIdx, error } });
      return;
    }
    // Only a seq the capture gave can repeat; a made-up one never does.
    if (givenSeq !== null) {
      const before = dedup.maxSeq(source);
      const verdict = dedup.event(source, givenSeq, givenIdx, time.ts);
      if (verdict === 'duplicate') {
        res.duplicates += 1;
        return;
      }
      if (verdict === 'restart') {
        // The old run's gaps can fill no more: given before its end.
        gaps.close(source);
        onRecord({ k: 'reset', rec: { source, previousSeq: before ?? 0, at: time.ts } });
      }
      if (verdict === 'resume') {
        // The jump ahead was a line out of place: the gap it opened is none.
        const from = gaps.dropLast(source);
        if (from !== null) highest.set(source, from - 1);
      }
      noteSeq(source, givenSeq, time.ts, verdict === 'restart');
    }
    lastTs = time.ts;
    appliedTs.set(source, Math.max(time.ts, appliedTs.get(source) ?? time.ts));
    const rec: EventRecord = { source, seq, ts: time.ts, dp_rank: rank, idx: eventIdx, event };
    res.events += 1;
    onRecord({ k: 'event', rec });
  };
  const end = await readLines(
    input,
    (line, lineNo, last) => {
      if (line.trimStart().startsWith('#')) return;
      let v: unknown;
      try {
        v = parseLossless(line);
      } catch {
        skip(
          last
            ? `line ${lineNo}: cut off at the end of the file (skipped)`
            : `line ${lineNo}: not JSON (skipped)`,
        );
        return;
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        skip(`line ${lineNo}: not a JSON object (skipped)`);
        return;
      }
      try {
        readLine(v as Obj, line, lineNo);
      } catch (err) {
        if (!(err instanceof BadLine)) throw err;
        skip(`line ${lineNo}: ${err.message} (skipped)`);
      }
    },
    {
      onProgress: opts.onProgress,
      onLongLine: (lineNo, bytes) => skip(longLineProblem(lineNo, bytes, MAX_LINE_BYTES)),
    },
  );
  outOfReach.flush();
  gaps.close();
  const dup = duplicateProblem(res.duplicates);
  if (dup) problems.addAlways(dup);
  const batches = (n: number): string => `${n} batch${n === 1 ? '' : 'es'}`;
  if (res.lostBatches > 0) {
    const jumps = `${lossyGaps} jump${lossyGaps === 1 ? '' : 's'} in seq`;
    problems.addAlways(
      `the capture lacks ${batches(res.lostBatches)} (${jumps}): counted as gaps, the batches lost`,
    );
  }
  if (res.lateBatches > 0) {
    problems.addAlways(
      `${batches(res.lateBatches)} came after later ones of their source: applied where they came, counted as recovered, not lost`,
    );
  }
  for (const p of endProblems(end, res.events)) problems.addAlways(p);
  if (res.tokenIdsDropped > 0) {
    problems.addAlways(
      `${res.tokenIdsDropped} events carried token_ids: only their count was kept`,
    );
  }
  res.problems = problems.result();
  res.sources = [...sources];
  return res;
}
