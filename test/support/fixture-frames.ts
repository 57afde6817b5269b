// Reads the recorded wire fixtures (test/fixtures/vllm): .frames messages and .truth.jsonl rows.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './built-app';

export const FIXTURE_DIR = join(ROOT, 'test', 'fixtures', 'vllm');

export interface FixturePaths {
  name: string;
  frames: string;
  truth: string;
}

const fixture = (name: string): FixturePaths => ({
  name,
  frames: join(FIXTURE_DIR, `${name}.frames`),
  truth: join(FIXTURE_DIR, `${name}.truth.jsonl`),
});

/** Positional batch with tagged-map events (released vLLM since mid-2026). */
export const HYBRID_INT = fixture('hybrid-int');
/** Positional batch and positional events (older vLLM). */
export const LEGACY_INT = fixture('legacy-int');
export const ALL_FIXTURES: readonly FixturePaths[] = [HYBRID_INT, LEGACY_INT];

/** One event as vLLM's own decoder saw it; fields absent in the older encoding stay absent. */
export interface TruthEvent {
  seq: number;
  ts: number;
  dp_rank: number | null;
  idx: number;
  n_events: number;
  type: 'BlockStored' | 'BlockRemoved' | 'AllBlocksCleared';
  block_hashes?: string[];
  parent_block_hash?: string | null;
  token_count?: number;
  token_sum?: number;
  block_size?: number;
  lora_id?: number | null;
  medium?: string | null;
  lora_name?: string | null;
  extra_keys?: unknown[] | null;
  group_idx?: number | null;
  kv_cache_spec_kind?: string | null;
  kv_cache_spec_sliding_window?: number | null;
  payload_len: number;
  payload_sha256_16: string;
}

/** The messages of a .frames file, each as its list of frames (views into one buffer). */
export function readFramesFile(path: string): Uint8Array[][] {
  const buf = readFileSync(path);
  const messages: Uint8Array[][] = [];
  let at = 0;
  const u32 = (): number => {
    if (at + 4 > buf.length) throw new Error(`${path}: truncated at byte ${at}`);
    at += 4;
    return buf.readUInt32BE(at - 4);
  };
  while (at < buf.length) {
    const count = u32();
    const frames: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const len = u32();
      if (at + len > buf.length) throw new Error(`${path}: frame runs past the end at byte ${at}`);
      frames.push(buf.subarray(at, at + len));
      at += len;
    }
    messages.push(frames);
  }
  return messages;
}

/** The rows of a .truth.jsonl file (hashes are decimal strings there, so JSON.parse is exact). */
export function readTruth(path: string): TruthEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TruthEvent);
}

/** Just the msgpack payloads of a .frames file (frame 2 of each message). */
export function readPayloads(path: string): Uint8Array[] {
  return readFramesFile(path).map((frames) => {
    const payload = frames[2];
    if (payload === undefined) throw new Error(`${path}: a message without a payload frame`);
    return payload;
  });
}
