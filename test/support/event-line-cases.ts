// Event records that exercise every branch of the event line encoder: the vLLM fixtures' events
// (decoded as the live path decodes them) and hand-made edge cases (labels that need escaping or
// are not ASCII, placement fields, numbers that are not plain ints, hash text that is not
// canonical). The pinned lines in test/fixtures/session/event-lines.pinned.jsonl are what the
// string encoder wrote for them before the byte encoder replaced it.
import path from 'node:path';
import type { EventRecord, KvEvent } from '../../shared/events';
import { decodeBatch } from '../../electron/wire/decode-batch';
import { ROOT } from './built-app';
import { readPayloads } from './fixture-frames';
import { stored as storedRecord } from '../model/helpers';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'vllm');

/** Batches taken from each fixture file (both event encodings, every field they carry). */
const FIXTURE_BATCHES = 80;

/** A BlockStored of three u64 hashes (the model tests' helper), with `over` for its fields. */
const stored = (over: Partial<Extract<KvEvent, { type: 'BlockStored' }>> = {}): KvEvent => ({
  ...(storedRecord('edge', 0, ['18446744073709551615', '0', '12345678901234567890'], null, null)
    .event as Extract<KvEvent, { type: 'BlockStored' }>),
  ...over,
});

const odd: [Partial<EventRecord>, KvEvent][] = [
  [{}, stored()],
  [{ dp_rank: 3 }, stored({ parent_block_hash: '-9223372036854775808', token_count: 33 })],
  [{ ts: 1.5e-7 }, stored({ lora_id: -7, lora_name: 'adapter "x"\\y', medium: 'GPÜ' })],
  [{ ts: Number.NaN }, stored({ extra_keys_count: 2, group_idx: 0, metadata_count: 1 })],
  [
    { ts: 1e21 },
    stored({ kv_cache_spec_kind: 'sliding_window', kv_cache_spec_sliding_window: 4096 }),
  ],
  [
    { source: 'src "quoted" é' },
    stored({ session_id_count: 1, locality: 'REMOTE', ownership: '7' }),
  ],
  [
    { seq: 2 ** 53 - 1 },
    stored({ block_hashes: ['ab'.repeat(32), 'not "canonical"\n'], medium: 'CPU' }),
  ],
  [{}, stored({ block_hashes: [], lora_name: '\u2028line\u0001sep\ud800' })],
  [{ idx: 7 }, { type: 'BlockRemoved', block_hashes: ['5', '6'], medium: 'GPU', group_idx: 2 }],
  [
    {},
    { type: 'BlockRemoved', block_hashes: ['5'], medium: null, group_idx: null, locality: 'LOCAL' },
  ],
  [{}, { type: 'AllBlocksCleared', medium: null }],
  [{ dp_rank: 0 }, { type: 'AllBlocksCleared', medium: 'DISK' }],
];

/** The records of the cases, in a fixed order (batch after batch, as the live path makes them). */
export function eventLineCases(): EventRecord[] {
  const out: EventRecord[] = [];
  let seq = 100;
  for (const name of ['hybrid-int', 'legacy-int']) {
    for (const p of readPayloads(path.join(FIXTURES, `${name}.frames`)).slice(0, FIXTURE_BATCHES)) {
      const d = decodeBatch(p, {}, { source: name, seq: seq++ });
      if (d.ok) out.push(...d.events);
    }
  }
  for (const [over, event] of odd) {
    out.push({
      source: 'edge',
      seq: seq++,
      ts: 1767225601.25,
      dp_rank: null,
      idx: 0,
      event,
      ...over,
    });
  }
  return out;
}
