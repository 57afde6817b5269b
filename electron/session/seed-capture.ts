// Importing JSONL captures: the seed script's `kv_events_subscriber.py --json` (bare integer
// hashes, ts, type, fields) and `kvscope capture --json` (the same plus seq and dp_rank, byte
// hashes as hex strings). Long integers are read losslessly; prompt content (token_ids,
// extra_keys, metadata, session_id values) is reduced to counts and never kept.

import type { EventRecord, HashKey, KvEvent } from '../../shared/events';
import type { SessionRecord } from './format';
import { MAX_LINE_BYTES, readLines, type SessionInput } from './line-reader';
import { parseLossless } from './lossless-json';
import { endProblems, longLineProblem, Problems, quoteValue } from './problems';

export interface CaptureReadResult {
  problems: string[];
  events: number;
  undecoded: number;
  skippedLines: number;
  /** Events whose token_ids were dropped (only their count is kept). */
  tokenIdsDropped: number;
  sources: string[];
}

type Obj = Record<string, unknown>;

function hashKey(v: unknown): HashKey | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : undefined;
  if (typeof v === 'string') {
    if (/^-?\d+$/.test(v)) return v;
    if (/^(0x)?[0-9a-fA-F]+$/.test(v)) return v.replace(/^0x/, '').toLowerCase();
  }
  return undefined;
}

function hashList(v: unknown): HashKey[] | string {
  if (!Array.isArray(v)) return 'block_hashes is not a list';
  const out: HashKey[] = [];
  for (const h of v) {
    const k = hashKey(h);
    if (k === undefined) return `block hash ${quoteValue(h)} is not an integer or hex string`;
    out.push(k);
  }
  return out;
}

const num = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
};
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const present = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (Array.isArray(v)) return v.filter((x) => x !== null).length;
  if (typeof v === 'object') return Object.keys(v).length;
  return 1;
};

/** A redacted event from one capture line, or why not. */
function captureEvent(o: Obj): KvEvent | string {
  if (o.type === 'BlockStored') {
    const block_hashes = hashList(o.block_hashes);
    if (typeof block_hashes === 'string') return block_hashes;
    const parent =
      o.parent_block_hash === null || o.parent_block_hash === undefined
        ? null
        : hashKey(o.parent_block_hash);
    if (parent === undefined) return 'parent_block_hash is not an integer or hex string';
    const tokenIds = Array.isArray(o.token_ids) ? o.token_ids.length : null;
    // SGLang puts a metadata map where vLLM has lora_name: tell them apart by type.
    const loraIsMap = typeof o.lora_name === 'object' && o.lora_name !== null;
    return {
      type: 'BlockStored',
      block_hashes,
      parent_block_hash: parent,
      token_count: num(o.token_count) ?? tokenIds ?? 0,
      block_size: num(o.block_size) ?? 0,
      lora_id: num(o.lora_id),
      medium: str(o.medium),
      lora_name: loraIsMap ? null : str(o.lora_name),
      extra_keys_count: num(o.extra_keys_count) ?? present(o.extra_keys),
      group_idx: num(o.group_idx),
      kv_cache_spec_kind: str(o.kv_cache_spec_kind),
      kv_cache_spec_sliding_window: num(o.kv_cache_spec_sliding_window),
      metadata_count:
        num(o.metadata_count) ??
        present(o.metadata) + (loraIsMap ? present(o.lora_name) : 0) + present(o.cache_salt),
      session_id_count: num(o.session_id_count) ?? (present(o.session_id) > 0 ? 1 : 0),
    };
  }
  if (o.type === 'BlockRemoved') {
    const block_hashes = hashList(o.block_hashes);
    if (typeof block_hashes === 'string') return block_hashes;
    return {
      type: 'BlockRemoved',
      block_hashes,
      medium: str(o.medium),
      group_idx: num(o.group_idx),
    };
  }
  if (o.type === 'AllBlocksCleared') return { type: 'AllBlocksCleared', medium: str(o.medium) };
  return `unknown event type ${quoteValue(o.type)}`;
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
    tokenIdsDropped: 0,
    sources: [],
  };
  const sources = new Set<string>();
  let synthSeq = -1;
  let lastTs: number | null = null;
  let lastKey = '';
  let idx = 0;
  const skip = (p: string): void => {
    res.skippedLines += 1;
    problems.add(p);
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
      const o = v as Obj;
      const rank = num(o.dp_rank);
      const source = rank !== null && rank > 0 ? `${base}#${rank}` : base;
      sources.add(source);
      const ts = num(o.ts);
      if (o.type === 'UNDECODED') {
        res.undecoded += 1;
        const rec = {
          source,
          seq: num(o.seq),
          bytes: num(o.bytes) ?? 0,
          error: str(o.error) ?? 'undecoded',
          at: ts ?? lastTs ?? 0,
        };
        onRecord({ k: 'undecoded', rec });
        return;
      }
      if (ts === null) {
        skip(`line ${lineNo}: event without a numeric ts (skipped)`);
        return;
      }
      const event = captureEvent(o);
      if (typeof event === 'string') {
        skip(`line ${lineNo}: ${event} (skipped)`);
        return;
      }
      if (Array.isArray(o.token_ids)) res.tokenIdsDropped += 1;
      // Events of one batch share a seq (given) or a ts (seed captures carry no seq).
      const givenSeq = num(o.seq);
      const key = `${source}\u0000${givenSeq ?? ''}\u0000${givenSeq === null ? ts : ''}`;
      if (key !== lastKey) {
        synthSeq += 1;
        idx = 0;
        lastKey = key;
      }
      lastTs = ts;
      const rec: EventRecord = {
        source,
        seq: givenSeq ?? synthSeq,
        ts,
        dp_rank: rank,
        idx: num(o.idx) ?? idx,
        event,
      };
      idx += 1;
      res.events += 1;
      onRecord({ k: 'event', rec });
    },
    {
      onProgress: opts.onProgress,
      onLongLine: (lineNo, bytes) => skip(longLineProblem(lineNo, bytes, MAX_LINE_BYTES)),
    },
  );
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
