// Session version 2: an event line leaves out the fields at their defaults. Every record the decoder
// makes (vLLM's fixtures and every wire variant) and any record within the bounds reads back as
// written; version-1 files read as before; hostile version-2 lines are problem lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeRecord,
  makeHeader,
  parseRecord,
  SESSION_VERSION,
  type SessionRecord,
} from '../../electron/session/format';
import { readSession } from '../../electron/session/read-session';
import { decodeBatch } from '../../electron/wire/decode-batch';
import {
  INT32_MAX,
  INT32_MIN,
  MAX_ABS_TS_SEC,
  MAX_BLOCK_SIZE,
  MAX_COUNT,
  MAX_DP_RANK,
  MAX_GROUP_IDX,
  MAX_WINDOW,
  PLACEMENT_LABEL,
} from '../../shared/event-bounds';
import type {
  AllBlocksClearedEvent,
  BlockRemovedEvent,
  BlockStoredEvent,
  EventRecord,
  KvEvent,
} from '../../shared/events';
import { stored } from '../model/helpers';
import { captureVariantMessages } from '../support/capture-variants';
import { v1EventLine } from '../support/session-v1';

/** The event records KvSource makes of the pinned capture stream (fixtures and variants). */
function decodedRecords(): EventRecord[] {
  const out: EventRecord[] = [];
  captureVariantMessages().forEach((frames, seq) => {
    const payload = frames[2];
    if (payload === undefined) return;
    const d = decodeBatch(payload);
    if (!d.ok || d.ts === null) return;
    // JSON has no -0 (a variant's ts): it reads back as 0, in version 1 too.
    const ts = Object.is(d.ts, -0) ? 0 : d.ts;
    for (const e of d.events)
      out.push({ source: 'engine', seq, ts, dp_rank: d.dpRank, idx: e.idx, event: e.event });
  });
  return out;
}

const headerLine = (version: number): string =>
  JSON.stringify({ ...makeHeader('0.1.0', new Date(0), []), version });

async function read(lines: string[]) {
  const recs: SessionRecord[] = [];
  const r = await readSession(Buffer.from(`${lines.join('\n')}\n`), (x) => recs.push(x));
  return { ...r, recs, events: recs.flatMap((x) => (x.k === 'event' ? [x.rec] : [])) };
}

describe('session version 2', () => {
  it('reads back every record the decoder makes of every wire variant, exactly', async () => {
    const records = decodedRecords();
    expect(records.length).toBeGreaterThan(1300);
    const lines = records.map((rec) => encodeRecord({ k: 'event', rec }));
    const r = await read([headerLine(SESSION_VERSION), ...lines]);
    expect(r.problems).toEqual([]);
    expect(r.header.version).toBe(2);
    expect(r.events).toStrictEqual(records);
  });

  it('reads a version-1 file of the same records as before, without a problem line', async () => {
    const records = decodedRecords();
    const r = await read([headerLine(1), ...records.map(v1EventLine)]);
    expect(r.problems).toEqual([]);
    expect(r.header.version).toBe(1);
    expect(r.events).toStrictEqual(records);
  });

  it('leaves out the fields at their defaults: a fifth fewer bytes on the fixtures', () => {
    const records = decodedRecords();
    const bytes = (line: (r: EventRecord) => string): number =>
      records.reduce((n, r) => n + line(r).length + 1, 0);
    const v2 = bytes((rec) => encodeRecord({ k: 'event', rec }));
    expect(v2).toBeLessThan(0.8 * bytes(v1EventLine));
    const bare: EventRecord = {
      source: 'a',
      seq: 1,
      ts: 2.5,
      dp_rank: null,
      idx: 0,
      event: { type: 'BlockRemoved', block_hashes: ['1', 'ff'], medium: null, group_idx: null },
    };
    expect(encodeRecord({ k: 'event', rec: bare })).toBe(
      '{"k":"event","source":"a","seq":1,"ts":2.5,"idx":0,"event":{"type":"BlockRemoved","block_hashes":["1","ff"]}}',
    );
  });

  it('writes every field of every event type when it is not at its default', () => {
    // Required<...>: a field added to an event type fails to compile here until it is listed, and
    // then fails this test until the hand-built encoder writes it.
    const storedEvent: Required<BlockStoredEvent> = {
      type: 'BlockStored',
      block_hashes: ['1'],
      parent_block_hash: '2',
      token_count: 3,
      block_size: 4,
      lora_id: 5,
      medium: 'CPU',
      lora_name: 'l',
      extra_keys_count: 6,
      group_idx: 7,
      kv_cache_spec_kind: 'sliding_window',
      kv_cache_spec_sliding_window: 8,
      metadata_count: 9,
      session_id_count: 10,
      locality: 'REMOTE',
      ownership: 't1',
    };
    const removedEvent: Required<BlockRemovedEvent> = {
      type: 'BlockRemoved',
      block_hashes: ['1'],
      medium: 'CPU',
      group_idx: 7,
      locality: 'LOCAL',
      ownership: 't2',
    };
    const clearedEvent: Required<AllBlocksClearedEvent> = {
      type: 'AllBlocksCleared',
      medium: 'CPU',
    };
    for (const event of [storedEvent, removedEvent, clearedEvent]) {
      const rec: Required<EventRecord> = { source: 's', seq: 1, ts: 2, dp_rank: 3, idx: 4, event };
      const line = JSON.parse(encodeRecord({ k: 'event', rec })) as Record<string, unknown>;
      expect(line).toStrictEqual({ k: 'event', ...rec });
    }
  });

  it('reads back any record within the bounds as written (labels, hashes and counts fuzzed)', () => {
    const label = fc.option(fc.string({ unit: 'binary', maxLength: 12 }), { nil: null });
    const placement = fc.option(fc.stringMatching(PLACEMENT_LABEL), { nil: undefined });
    const hash = fc.oneof(
      fc.bigInt(0n, 2n ** 64n - 1n).map(String),
      fc.bigInt(-(2n ** 63n), -1n).map(String),
      fc.stringMatching(/^[0-9a-f]{64}$/),
      // A digest of any length up to the bound, as the decoder writes bytes (an empty one too).
      fc.uint8Array({ maxLength: 128 }).map((b) => Buffer.from(b).toString('hex')),
    );
    const hashes = fc.array(hash, { maxLength: 6 });
    const count = fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: INT32_MAX }),
      fc.constant(MAX_COUNT),
    );
    const nullableInt = (min: number, max: number) =>
      fc.option(fc.integer({ min, max }), { nil: null });
    const placed = <T extends object>(e: T, locality?: string, ownership?: string): T => ({
      ...e,
      ...(locality === undefined ? {} : { locality }),
      ...(ownership === undefined ? {} : { ownership }),
    });
    const storedEvent: fc.Arbitrary<KvEvent> = fc
      .tuple(
        fc.record({
          block_hashes: hashes,
          parent_block_hash: fc.option(hash, { nil: null }),
          token_count: count,
          block_size: fc.integer({ min: 0, max: MAX_BLOCK_SIZE }),
          lora_id: nullableInt(INT32_MIN, INT32_MAX),
          medium: label,
          lora_name: label,
          extra_keys_count: count,
          group_idx: nullableInt(0, MAX_GROUP_IDX),
          kv_cache_spec_kind: label,
          kv_cache_spec_sliding_window: nullableInt(0, MAX_WINDOW),
          metadata_count: count,
          session_id_count: count,
        }),
        placement,
        placement,
      )
      .map(([f, loc, own]) => placed({ type: 'BlockStored' as const, ...f }, loc, own));
    const removedEvent: fc.Arbitrary<KvEvent> = fc
      .tuple(hashes, label, nullableInt(0, MAX_GROUP_IDX), placement, placement)
      .map(([block_hashes, medium, group_idx, loc, own]) =>
        placed({ type: 'BlockRemoved' as const, block_hashes, medium, group_idx }, loc, own),
      );
    const clearedEvent: fc.Arbitrary<KvEvent> = label.map((medium) => ({
      type: 'AllBlocksCleared' as const,
      medium,
    }));
    // Plain objects, as the reader makes (fc.record's have no prototype).
    const record: fc.Arbitrary<EventRecord> = fc
      .record({
        source: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
        seq: fc.maxSafeNat(),
        // JSON has no -0: it reads back as 0, in version 1 too.
        ts: fc
          .double({ min: -MAX_ABS_TS_SEC, max: MAX_ABS_TS_SEC, noNaN: true })
          .map((x) => (Object.is(x, -0) ? 0 : x)),
        dp_rank: nullableInt(0, MAX_DP_RANK),
        idx: fc.nat(),
        event: fc.oneof(storedEvent, removedEvent, clearedEvent),
      })
      .map((r) => ({ ...r }));
    // Runs of records that share some of source, seq, ts and rank with the first (all four: one
    // batch, whose line head the encoder keeps for the next event; some: a head it must not keep).
    const inherit = fc.record({
      source: fc.boolean(),
      seq: fc.boolean(),
      ts: fc.boolean(),
      dp_rank: fc.boolean(),
    });
    const runs = fc
      .array(fc.tuple(record, inherit), { minLength: 1, maxLength: 5 })
      .map((pairs) => {
        const first = pairs[0]?.[0] as EventRecord;
        return pairs.map(([r, k]) => ({
          ...r,
          source: k.source ? first.source : r.source,
          seq: k.seq ? first.seq : r.seq,
          ts: k.ts ? first.ts : r.ts,
          dp_rank: k.dp_rank ? first.dp_rank : r.dp_rank,
        }));
      });
    fc.assert(
      fc.property(runs, (recs) => {
        for (const rec of recs) {
          const line = encodeRecord({ k: 'event', rec });
          // What a file holds: the line's UTF-8 reads back as the same text.
          expect(Buffer.from(line, 'utf8').toString('utf8')).toBe(line);
          const parsed = parseRecord(JSON.parse(line) as Record<string, unknown>);
          expect(parsed).toStrictEqual({ r: { k: 'event', rec }, timeError: null });
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('turns hostile version-2 lines into problem lines and keeps the good ones', async () => {
    const good =
      '{"k":"event","source":"a","seq":1,"ts":5,"idx":0,"event":{"type":"BlockRemoved","block_hashes":["9"]}}';
    const r = await read([
      headerLine(2),
      good,
      '{"k":"event","source":"a","seq":2,"idx":0,"event":{"type":"AllBlocksCleared"}}',
      '{"k":"event","source":"a","seq":3,"ts":5,"idx":0}',
      '{"k":"event","source":"a","seq":4,"ts":5,"idx":0,"event":{"type":"BlockStored"}}',
      '{"k":"event","source":"a","seq":5,"ts":5,"idx":0,"event":{"type":"BlockStored","block_hashes":["7"],"token_count":-1}}',
      // Fields a file may carry beyond the known ones (token ids, say) never reach the record.
      '{"k":"event","source":"a","seq":6,"ts":6,"idx":0,"rank":3,"event":{"type":"BlockStored","block_hashes":["8"],"token_ids":[1,2],"cache_salt":"x"}}',
      // Defaults written out, as version 1 does, read the same in a version-2 file.
      '{"k":"event","source":"a","seq":7,"ts":7,"dp_rank":null,"idx":0,"event":{"type":"BlockRemoved","block_hashes":["9"],"medium":null,"group_idx":null}}',
    ]);
    expect(r.problems).toEqual([
      'line 3: event without source, seq or ts (skipped)',
      'line 4: event without its event (skipped)',
      'line 5: BlockStored without a list of string hashes (skipped)',
      'line 6: token_count -1 is out of range (a whole number from 0 to 4294967296) (skipped)',
    ]);
    expect(r.counts.skippedLines).toBe(4);
    expect(r.events.map((e) => e.seq)).toEqual([1, 6, 7]);
    // Every field the line left out at its default, none of what the reader does not know.
    const bare = stored('a', 6, ['8'], null, null);
    expect(r.events[1]).toStrictEqual({
      ...bare,
      seq: 6,
      dp_rank: null,
      event: { ...bare.event, token_count: 0, block_size: 0 },
    });
    expect(r.events[2]?.event).toStrictEqual(r.events[0]?.event);
  });
});
