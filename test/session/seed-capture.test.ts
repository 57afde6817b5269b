import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../electron/session/format';
import { loadIntoModel } from '../../electron/session/load';
import { quoteBigInts } from '../../electron/session/lossless-json';
import { importSeedCapture } from '../../electron/session/seed-capture';

const seedLines = [
  '# subscribed to tcp://localhost:5557 topic=kv-events',
  '{"ts": 1.0, "type": "BlockStored", "block_hashes": [18446744073709551615, 9007199254740993, 7], "parent_block_hash": null, "token_count": 48, "block_size": 16, "lora_id": null}',
  '{"ts": 1.0, "type": "BlockStored", "block_hashes": [12345678901234567890], "parent_block_hash": 7, "token_ids": [101, 202, 303], "block_size": 16, "lora_id": null, "extra_keys": [["secret-salt"]], "future_field": {"x": 1}}',
  '{"ts": null, "type": "UNDECODED", "bytes": 12, "error": "DecodeError: truncated"}',
  '{"ts": 2.5, "type": "BlockRemoved", "block_hashes": [9007199254740993]}',
  'not json at all',
  '{"ts": 3.0, "type": "AllBlocksCleared"}',
];

async function collect(
  text: string,
): Promise<{ recs: SessionRecord[]; res: Awaited<ReturnType<typeof importSeedCapture>> }> {
  const recs: SessionRecord[] = [];
  const res = await importSeedCapture(Buffer.from(text), (r) => recs.push(r), { source: 'seed' });
  return { recs, res };
}

describe('capture import', () => {
  it('keeps 64-bit integer hashes exact, never JSON numbers', async () => {
    const { recs } = await collect(seedLines.join('\n'));
    const first = recs[0];
    expect(
      first?.k === 'event' &&
        first.rec.event.type === 'BlockStored' &&
        first.rec.event.block_hashes,
    ).toEqual(['18446744073709551615', '9007199254740993', '7']);
    const second = recs[1];
    expect(
      second?.k === 'event' &&
        second.rec.event.type === 'BlockStored' &&
        second.rec.event.parent_block_hash,
    ).toBe('7');
  });

  it('never keeps token ids or extra key values, only their counts', async () => {
    const { recs, res } = await collect(seedLines.join('\n'));
    const text = JSON.stringify(recs);
    expect(text).not.toContain('202');
    expect(text).not.toContain('secret-salt');
    expect(text).not.toContain('future_field');
    const ev = recs[1]?.k === 'event' ? recs[1].rec.event : null;
    expect(ev).toMatchObject({ token_count: 3, extra_keys_count: 1 });
    expect(res.tokenIdsDropped).toBe(1);
    expect(res.problems).toContain('1 events carried token_ids: only their count was kept');
  });

  it('groups events of one ts into one batch, keeps UNDECODED lines and lists bad lines', async () => {
    const { recs, res } = await collect(seedLines.join('\n'));
    expect(recs.map((r) => r.k)).toEqual(['event', 'event', 'undecoded', 'event', 'event']);
    const seqs = recs.flatMap((r) => (r.k === 'event' ? [[r.rec.seq, r.rec.idx]] : []));
    expect(seqs).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [2, 0],
    ]);
    expect(res.problems).toContain('line 6: not JSON (skipped)');
    const loaded = await loadIntoModel(Buffer.from(seedLines.join('\n')), {
      captureSource: 'seed',
    });
    expect(loaded.kind).toBe('capture');
    expect(loaded.model.kpis()).toMatchObject({
      storedBlocks: 4,
      removedBlocks: 1,
      residentBlocks: 0,
      clears: 1,
      undecoded: 1,
    });
  });

  it('imports kvscope capture --json output (seq, dp_rank, hex byte hashes) by source rank', async () => {
    const lines = [
      '{"seq": 4, "ts": 10.0, "dp_rank": 0, "type": "BlockStored", "block_hashes": ["ab01", "CD02"], "parent_block_hash": null, "token_count": 32, "block_size": 16, "medium": "GPU"}',
      '{"seq": 4, "ts": 10.0, "dp_rank": 1, "type": "BlockStored", "block_hashes": ["ef03"], "parent_block_hash": "cd02", "token_count": 16, "block_size": 16}',
    ];
    const { recs } = await collect(lines.join('\n'));
    expect(recs.map((r) => r.k === 'event' && [r.rec.source, r.rec.seq])).toEqual([
      ['seed', 4],
      ['seed#1', 4],
    ]);
    expect(
      recs[0]?.k === 'event' &&
        recs[0].rec.event.type === 'BlockStored' &&
        recs[0].rec.event.block_hashes,
    ).toEqual(['ab01', 'cd02']);
  });

  it('counts the batches a capture skipped (a jump in seq) as a gap, lost, and not a restart or an undecoded batch', async () => {
    const line = (seq: number, ts: number, hash: string): string =>
      `{"seq": ${seq}, "ts": ${ts}, "type": "BlockStored", "block_hashes": ["${hash}"], "parent_block_hash": null, "token_count": 16, "block_size": 16}`;
    const lines = [
      line(10, 1, '1'),
      line(11, 1.1, '2'),
      // 12 came undecoded: its seq is no gap.
      '{"seq": 12, "ts": 1.2, "type": "UNDECODED", "bytes": 9, "error": "DecodeError"}',
      line(13, 1.3, '3'),
      // 14..20 are not in the file: the consumer fell behind.
      line(21, 2.1, '4'),
      line(21, 2.1, '5'),
      // Back to 0: an engine restart, no gap.
      line(0, 3, '6'),
      line(1, 3.1, '7'),
    ];
    const { recs, res } = await collect(lines.join('\n'));
    const gaps = recs.filter((r) => r.k === 'gap').map((r) => r.rec);
    expect(gaps).toEqual([
      { source: 'seed', from: 14, to: 20, recovered: 0, lost: 7, at: 2.1, since: 1.3 },
    ]);
    expect(recs.filter((r) => r.k === 'reset')).toHaveLength(1);
    expect(res).toMatchObject({ gaps: 1, lostBatches: 7 });
    expect(res.problems).toContain(
      'the capture lacks 7 batches (1 jump in seq): counted as gaps, the batches lost',
    );
    // The opened capture and the analysis count them as the live path would have.
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n')), {
      kind: 'capture',
      captureSource: 'seed',
    });
    expect(loaded.model.kpis()).toMatchObject({ gaps: 1, lost: 7 });
    expect(loaded.analysis.input).toMatchObject({ gaps: 1, lostBatches: 7 });
  });

  it('reads a line moved far from its place as a batch out of place, not a restart and thousands of batches lost', async () => {
    const line = (seq: number): string =>
      `{"seq": ${seq}, "ts": ${1 + seq / 100}, "type": "BlockStored", "block_hashes": ["${seq + 1}"], "parent_block_hash": null, "token_count": 16, "block_size": 16}`;
    const seqs = Array.from({ length: 1000 }, (_, i) => i);
    // 700 moved to just after 100; 300 moved to just after 900.
    const moved = seqs
      .filter((s) => s !== 700 && s !== 300)
      .flatMap((s) => (s === 100 ? [100, 700] : s === 900 ? [900, 300] : [s]));
    const { recs, res } = await collect(moved.map(line).join('\n'));
    expect(recs.filter((r) => r.k === 'reset')).toEqual([]);
    // 700, read early, is no gap; 300 was missing at its place and came too late to be applied.
    expect(recs.filter((r) => r.k === 'gap').map((r) => r.rec)).toMatchObject([
      { from: 300, to: 300, lost: 1 },
    ]);
    expect(res).toMatchObject({ gaps: 1, lostBatches: 1, duplicates: 1 });
    // Every batch but the one out of order (300, skipped as one) is applied.
    expect(recs.filter((r) => r.k === 'event')).toHaveLength(999);
  });

  it('counts a batch that came after later ones (a replayed batch printed when it came) as recovered, not lost', async () => {
    const line = (seq: number, ts: number, hash: number): string =>
      `{"seq": ${seq}, "ts": ${ts}, "type": "BlockStored", "block_hashes": [${hash}], "parent_block_hash": null, "token_count": 16, "block_size": 16}`;
    // 3 and 4 came before 2; 6 and 7 never came; 5 came last of all, after 8.
    const seqs = [0, 1, 3, 4, 2, 8, 9, 5, 10];
    const lines = seqs.map((seq, i) => line(seq, 100 + i, 1000 + seq));
    const { recs, res } = await collect(lines.join('\n'));
    expect(res.events).toBe(9);
    expect(recs.filter((r) => r.k === 'reset')).toHaveLength(0);
    const gaps = recs.filter((r) => r.k === 'gap').map((r) => r.rec);
    expect(gaps).toEqual([
      { source: 'seed', from: 2, to: 2, recovered: 1, lost: 0, at: 102, since: 101 },
      { source: 'seed', from: 5, to: 7, recovered: 1, lost: 2, at: 105, since: 104 },
    ]);
    expect(res).toMatchObject({ gaps: 2, lostBatches: 2, lateBatches: 2 });
    expect(res.problems).toContain(
      'the capture lacks 2 batches (1 jump in seq): counted as gaps, the batches lost',
    );
    expect(res.problems).toContain(
      '2 batches came after later ones of their source: applied where they came, counted as recovered, not lost',
    );
    const loaded = await loadIntoModel(Buffer.from(lines.join('\n')), {
      kind: 'capture',
      captureSource: 'seed',
    });
    expect(loaded.model.kpis()).toMatchObject({ storedBlocks: 9, gaps: 2, lost: 2 });
    // The lost stretch is shaded from the latest batch before the gap (seq 2, late, at 104) to the
    // one after.
    const lossy = loaded.model.series({ rangeSec: null }).markers.filter((m) => m.kind === 'gap');
    expect(lossy.map((m) => [m.t, m.from])).toEqual([
      [102, undefined],
      [105, 104],
    ]);
    expect(loaded.analysis.input).toMatchObject({ gaps: 2, lostBatches: 2 });
  });

  it('gives a gap once the seqs have passed it by more than a late batch can come back', async () => {
    const line = (seq: number): string =>
      `{"seq": ${seq}, "ts": ${seq}, "type": "BlockStored", "block_hashes": [${seq + 1}], "parent_block_hash": null, "token_count": 16, "block_size": 16}`;
    const seqs = [0, 2];
    for (let seq = 3; seq <= 70; seq++) seqs.push(seq);
    const recs: SessionRecord[] = [];
    await importSeedCapture(Buffer.from(seqs.map(line).join('\n')), (r) => recs.push(r), {
      source: 'seed',
    });
    // Seq 1 can come back until seq 65 (RESTART_WINDOW = 64 past it); seq 66 gives its gap.
    const at = recs.findIndex((r) => r.k === 'gap');
    expect(recs[at]).toEqual({
      k: 'gap',
      rec: { source: 'seed', from: 1, to: 1, recovered: 0, lost: 1, at: 2, since: 0 },
    });
    expect(recs[at - 1]).toMatchObject({ k: 'event', rec: { seq: 65 } });
    expect(recs[at + 1]).toMatchObject({ k: 'event', rec: { seq: 66 } });
  });

  it('reads an engine restart whose first batches the capture missed as a restart, not duplicates', async () => {
    // As `kvscope capture` wrote it of a publisher restarted after seq 9, its seqs 0 and 1 missed.
    const line = (seq: number, ts: number, hash: number): string =>
      `{"seq": ${seq}, "ts": ${ts}, "type": "BlockStored", "block_hashes": [${hash}], "parent_block_hash": null, "token_count": 16, "block_size": 16}`;
    const lines: string[] = [];
    for (let seq = 0; seq <= 9; seq++) lines.push(line(seq, 1000 + seq, 100 + seq));
    for (let seq = 2; seq <= 12; seq++) lines.push(line(seq, 2000 + seq, 500 + seq));
    const text = lines.join('\n');
    const { recs, res } = await collect(text);
    expect(res.duplicates).toBe(0);
    expect(res.events).toBe(21);
    expect(recs.filter((r) => r.k === 'reset')).toHaveLength(1);
    // The new run counts from 0, as live: its missed start is a gap.
    const gaps = recs.filter((r) => r.k === 'gap').map((r) => r.rec);
    expect(gaps).toEqual([
      { source: 'seed', from: 0, to: 1, recovered: 0, lost: 2, at: 2002, since: 1009 },
    ]);
    // Resident is the new engine's 11 blocks alone, as the live capture and serve count it.
    const loaded = await loadIntoModel(Buffer.from(text), {
      kind: 'capture',
      captureSource: 'seed',
    });
    expect(loaded.model.kpis()).toMatchObject({
      storedBlocks: 21,
      residentBlocks: 11,
      gaps: 1,
      lost: 2,
    });
    expect(loaded.analysis.input).toMatchObject({ resets: 1, gaps: 1, lostBatches: 2 });
  });

  it('imports the vLLM truth fixture with every block counted', async () => {
    const path = new URL('../fixtures/vllm/legacy-int.truth.jsonl', import.meta.url);
    const text = await readFile(path, 'utf8');
    let stored = 0;
    let removed = 0;
    for (const line of text.trim().split('\n')) {
      const o = JSON.parse(line) as { type: string; block_hashes?: string[] };
      if (o.type === 'BlockStored') stored += o.block_hashes?.length ?? 0;
      if (o.type === 'BlockRemoved') removed += o.block_hashes?.length ?? 0;
    }
    const loaded = await loadIntoModel(Buffer.from(text));
    expect(loaded.model.kpis().storedBlocks).toBe(stored);
    expect(loaded.model.kpis().removedBlocks).toBe(removed);
    expect(loaded.events).toBe(text.trim().split('\n').length);
    expect(JSON.stringify(loaded.model.events({ offset: 0, limit: 100000 }))).not.toContain(
      'token_sum',
    );
  });

  it('quotes only long integer literals outside strings', () => {
    expect(
      quoteBigInts(
        '{"a": 18446744073709551615, "b": "12345678901234567890", "c": 1.5e300, "d": -9223372036854775808, "e": 42}',
      ),
    ).toBe(
      '{"a": "18446744073709551615", "b": "12345678901234567890", "c": 1.5e300, "d": "-9223372036854775808", "e": 42}',
    );
    expect(quoteBigInts('{"s": "a \\" 12345678901234567 b"}')).toBe(
      '{"s": "a \\" 12345678901234567 b"}',
    );
  });

  it('names a bad value in a problem line by its kind, never by its content', async () => {
    const prompt = 'the user asked about their medical history '.repeat(20);
    const lines = [
      JSON.stringify({ ts: 1, type: prompt }),
      JSON.stringify({ ts: 1, type: 'BlockRemoved', block_hashes: [[101, 202, 303]] }),
      JSON.stringify({ ts: 1, type: 'Mystery' }),
      '{"ts": 1, "type": "AllBlocksCleared"}',
    ];
    const { res } = await collect(lines.join('\n'));
    expect(res.problems).toEqual([
      `line 1: unknown event type a ${prompt.length}-character string (skipped)`,
      'line 2: block hash a list of 3 is not an integer or a hex string of whole bytes (skipped)',
      'line 3: unknown event type "Mystery" (skipped)',
    ]);
  });

  it('reads a capture whose first line starts with a byte-order mark', async () => {
    const plain = await collect(seedLines.slice(1).join('\n'));
    const marked = await collect(`\uFEFF${seedLines.slice(1).join('\n')}`);
    expect(marked.recs).toEqual(plain.recs);
    expect(marked.res.events).toBe(4);
    expect(marked.res.problems).toEqual(plain.res.problems);
  });

  it('says a session imported as a capture is a session', async () => {
    const header = JSON.stringify({ format: 'kvscope-session', version: 2, sources: [] });
    await expect(collect(`${header}\n`)).rejects.toThrow(/is a KV Scope session.*Open session/);
  });
});
