// A file naming more sources at once than the analysis takes (a hostile one: 20,000 sources grew
// the model to 780 MB, and its charts never loaded): the records of the sources past the limit are
// not read, their events counted in a problem line; what is read pairs each event with its line.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { loadIntoModel } from '../../electron/session/load';
import { MAX_ANALYSED_SOURCES } from '../../shared/analysis-report';
import { stored } from '../model/helpers';

const T0 = 1_767_225_600;
const EXTRA = 3;

/** One event of one block from each of MAX_ANALYSED_SOURCES + EXTRA sources, then s0 removed. */
function session(removeFirst: boolean): Buffer {
  const lines = [JSON.stringify(makeHeader('test', new Date(0), []))];
  const event = (i: number, hash: string, seq: number): string =>
    encodeRecord({ k: 'event', rec: { ...stored(`s${i}`, T0 + i / 1000, [hash]), seq } });
  for (let i = 0; i < MAX_ANALYSED_SOURCES + EXTRA; i += 1) lines.push(event(i, `${i + 1}`, 0));
  if (removeFirst) {
    lines.push(
      encodeRecord({ k: 'source', rec: { id: 's0', name: 's0', endpoint: '', removedAt: T0 + 1 } }),
    );
    lines.push(event(9999, '777777', 0));
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

describe('a file of more sources at once than are read', () => {
  it('reads the first sources, says how many events of the rest were not read', async () => {
    const r = await loadIntoModel(session(false));
    expect(r.problems[0]).toBe(
      `more than ${MAX_ANALYSED_SOURCES} sources at once: ${EXTRA} events of the sources past them not read`,
    );
    expect(r.model.kpis().storedBlocks).toBe(MAX_ANALYSED_SOURCES);
    expect(r.events).toBe(MAX_ANALYSED_SOURCES);
    expect(r.analysis.sources).toHaveLength(MAX_ANALYSED_SOURCES);
    // Each event read is shown with its own hash: no line of a dropped event took its place.
    const page = r.model.events({ offset: 0, limit: 5 });
    for (const row of page.rows)
      expect(row.event.type === 'BlockStored' && row.event.block_hashes).toEqual([
        `${Number(row.source.slice(1)) + 1}`,
      ]);
  });

  it('makes room for a source when the file marks one removed', async () => {
    const r = await loadIntoModel(session(true));
    expect(r.problems[0]).toMatch(/: 3 events of the sources past them not read$/);
    expect(r.model.search('777777')).toHaveLength(1);
  });
});
