// The events and chains exports: the view's filter applied, source names and ISO 8601 times in
// CSV, a JSON that parses, every matching row (past one page), written atomically to the file.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chainExport, CHAIN_CSV_COLUMNS } from '../../electron/export/chain-export';
import { eventExport, EVENT_CSV_COLUMNS } from '../../electron/export/event-export';
import { writeExportFile } from '../../electron/export/write-export';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, cleared, removed, stored } from '../model/helpers';

const T0 = 1_700_000_000;
const names = (id: string) => ({ a: 'gpu-box-1', b: 'gpu-box-2' })[id] ?? id;
const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function model(): CacheModel {
  const m = new CacheModel();
  m.apply(batch([stored('a', T0 + 0.5, ['11', '12'], null, 'GPU')]));
  m.apply(batch([stored('b', T0 + 1, ['21'], '11', 'CPU')]));
  m.apply(batch([removed('a', T0 + 2, ['12'], 'GPU')]));
  m.apply(batch([stored('a', T0 + 3, ['13', '14, "x"'], '11', 'GPU')]));
  m.apply(batch([cleared('b', T0 + 4)]));
  return m;
}

/** CSV text back into rows of named fields (the test's own small reader, quotes included). */
function readCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries((head ?? []).map((h, i) => [h, r[i] ?? ''])));
}

const text = (chunks: Iterable<string>) => [...chunks].join('');

describe('the events export', () => {
  it('writes every event as CSV with source names and ISO times, newest first', () => {
    const rows = readCsv(text(eventExport(model(), {}, 'csv', names)));
    expect(rows.map((r) => r.type)).toEqual([
      'AllBlocksCleared',
      'BlockStored',
      'BlockRemoved',
      'BlockStored',
      'BlockStored',
    ]);
    const newestStore = rows[1];
    expect(newestStore?.source).toBe('gpu-box-1');
    expect(newestStore?.source_id).toBe('a');
    expect(newestStore?.time_iso).toBe('2023-11-14T22:13:23.000Z');
    expect(newestStore?.block_hashes).toBe('13 14, "x"');
    expect(newestStore?.parent_block_hash).toBe('11');
    expect(newestStore?.token_count).toBe('32');
    expect(Object.keys(newestStore ?? {})).toEqual([...EVENT_CSV_COLUMNS]);
  });

  it("applies the view's filter: source, type, medium and hash", () => {
    const m = model();
    const of = (f: Parameters<typeof eventExport>[1]) =>
      readCsv(text(eventExport(m, f, 'csv', names))).map((r) => `${r.source_id}:${r.type}`);
    expect(of({ source: 'b' })).toEqual(['b:AllBlocksCleared', 'b:BlockStored']);
    expect(of({ types: ['BlockRemoved'] })).toEqual(['a:BlockRemoved']);
    expect(of({ medium: 'CPU' })).toEqual(['b:BlockStored']);
    expect(of({ hash: '11' })).toEqual(['a:BlockStored', 'b:BlockStored', 'a:BlockStored']);
  });

  it('writes JSON that parses, with hashes as strings and the filter it took', () => {
    const doc = JSON.parse(text(eventExport(model(), { source: 'a' }, 'json', names))) as {
      format: string;
      filter: unknown;
      events: { block_hashes?: string[]; source: string; time_iso: string }[];
    };
    expect(doc.format).toBe('kvscope-events');
    expect(doc.filter).toEqual({ source: 'a' });
    expect(doc.events).toHaveLength(3);
    expect(doc.events[0]?.block_hashes).toEqual(['13', '14, "x"']);
    expect(doc.events.every((e) => e.source === 'gpu-box-1')).toBe(true);
  });

  // 30,000: past one page of 25,000. 60,000: a full event log of 50,000, whole pages, whose end
  // the log answers with its last page again.
  it.each([
    { stored: 30_000, held: 30_000 },
    { stored: 60_000, held: 50_000 },
  ])('takes every event held, newest first, and ends: $stored stored', ({ stored: n, held }) => {
    const m = new CacheModel();
    for (let i = 0; i < n; i++) m.apply(batch([stored('a', T0 + i / 100, [`${i + 1}`])]));
    const lines = text(eventExport(m, {}, 'csv', names))
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(held + 1);
    expect(lines[1]?.split(',')[12]).toBe(`${n}`);
    expect(lines.at(-1)?.split(',')[12]).toBe(`${n - held + 1}`);
  });

  it('leaves the timestamp column without an ISO time for a clock that is not epoch time', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 12.5, ['1'])]));
    const [row] = readCsv(text(eventExport(m, {}, 'csv', names)));
    expect(row?.time_iso).toBe('');
    expect(row?.ts).toBe('12.5');
  });
});

describe('the chains export', () => {
  it("writes the chains in the view's order with source names, as CSV and JSON", () => {
    const m = model();
    const filter = { sort: 'depth', desc: true } as const;
    const rows = readCsv(text(chainExport(m, filter, 'csv', names)));
    expect(Object.keys(rows[0] ?? {})).toEqual([...CHAIN_CSV_COLUMNS]);
    const depths = rows.map((r) => Number(r.depth_blocks));
    expect(depths).toEqual([...depths].sort((x, y) => y - x));
    expect(rows[0]?.first_seen_iso).toMatch(/^2023-11-14T22:13:2\d\.\d{3}Z$/);
    expect(rows.some((r) => r.sources === 'gpu-box-1')).toBe(true);
    const doc = JSON.parse(text(chainExport(m, filter, 'json', names))) as { chains: unknown[] };
    expect(doc.chains).toHaveLength(rows.length);
  });

  it("applies the view's hash search and source", () => {
    const m = model();
    const ids = (f: Parameters<typeof chainExport>[1]) =>
      readCsv(text(chainExport(m, f, 'csv', names))).map((r) => r.chain_id);
    const all = ids({ sort: 'lastSeen', desc: true });
    const of13 = ids({ sort: 'lastSeen', desc: true, hash: '13' });
    expect(of13.length).toBeGreaterThan(0);
    expect(of13.length).toBeLessThan(all.length);
    expect(ids({ sort: 'lastSeen', desc: true, source: 'nobody' })).toEqual([]);
  });
});

describe('writing an export file', () => {
  it('leaves no partial file under the name when writing fails midway', async () => {
    const target = path.join(dir, 'events.csv');
    function* failing(): Generator<string> {
      yield 'a,b\n'.repeat(40_000);
      throw new Error('the model went away');
    }
    await expect(writeExportFile(target, failing())).rejects.toThrow('the model went away');
    expect(readdirSync(dir)).toEqual([]);
    expect(await writeExportFile(target, ['x\n', 'y\n'])).toBe(4);
    expect(readFileSync(target, 'utf8')).toBe('x\ny\n');
  });
});
