// The rates CSV: ISO 8601 times, sources by name, resident blocks per source and per medium.
import { describe, expect, it } from 'vitest';
import { ratesCsv } from '../../electron/export/rates-csv';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, removed, stored } from '../model/helpers';

const T0 = 1_733_000_000;

describe('the rates CSV', () => {
  it('has a header row, ISO times, totals that add up and sources by their names', () => {
    const m = new CacheModel();
    m.apply(batch([stored('id-a', T0, ['1', '2'])]));
    m.apply(batch([stored('id-b', T0 + 2, ['3'], null, 'CPU')]));
    m.apply(batch([removed('id-a', T0 + 2, ['1'])]));
    const names = new Map([
      ['id-a', 'engine, one'],
      ['id-b', 'engine-2'],
    ]);
    const rows = ratesCsv(m, names).trimEnd().split('\n');
    expect(rows[0]).toBe(
      'time_s,time,bin_s,stored_per_s,removed_per_s,"stored_per_s[engine, one]","removed_per_s[engine, one]",stored_per_s[engine-2],removed_per_s[engine-2],"resident_by_source[engine, one]",resident_by_source[engine-2],resident[GPU],resident[CPU]',
    );
    // engine-2 came at T0 + 2: its cells before are empty (it was not there), not zeros.
    expect(rows.slice(1)).toEqual([
      `${T0},2024-11-30T20:53:20.000Z,1,2,0,2,0,,,2,,2,0`,
      `${T0 + 1},2024-11-30T20:53:21.000Z,1,0,0,0,0,,,2,,2,0`,
      `${T0 + 2},2024-11-30T20:53:22.000Z,1,1,1,0,1,1,0,1,1,1,1`,
    ]);
  });

  it('ends live at the last complete second: the one still filling is no row', () => {
    const m = new CacheModel();
    for (let i = 0; i < 3; i++) m.apply(batch([stored('a', T0 + i, [`${i}a`, `${i}b`])]));
    // Half of the second T0 + 3 has come (and the second before it has settled).
    m.apply(batch([stored('a', T0 + 3.05, ['3a'])]));
    const times = (csv: string) =>
      csv
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((r) => Number(r.split(',')[0]));
    expect(times(ratesCsv(m, new Map(), undefined, T0 + 3.5))).toEqual([T0, T0 + 1, T0 + 2]);
    // An opened session (no now) ends with its last second.
    expect(times(ratesCsv(m)).at(-1)).toBe(T0 + 3);
  });

  it('keeps ids where no name is known and tells two sources of one name apart', () => {
    const m = new CacheModel();
    m.apply(batch([stored('p1', T0, ['1'])]));
    m.apply(batch([stored('p2', T0, ['2'])]));
    m.apply(batch([stored('p3', T0, ['3'])]));
    const names = new Map([
      ['p1', 'vllm'],
      ['p2', 'vllm'],
    ]);
    const head = ratesCsv(m, names).split('\n')[0] ?? '';
    expect(head).toContain('stored_per_s[vllm (p1)],removed_per_s[vllm (p1)]');
    expect(head).toContain('stored_per_s[vllm (p2)]');
    expect(head).toContain('stored_per_s[p3]');
  });
});
