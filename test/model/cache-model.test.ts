import { describe, expect, it } from 'vitest';
import { CacheModel } from '../../electron/model/cache-model';
import { batch, cleared, removed, stored } from './helpers';

describe('CacheModel counts', () => {
  it('counts stored, removed and resident blocks as hand-computed truth', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 100.2, ['1', '2', '3'])]));
    m.apply(batch([stored('a', 100.7, ['3', '4'], '2')])); // 3 is a duplicate store
    m.apply(batch([removed('a', 101.1, ['1', '99'])])); // 99 was never resident
    m.apply(batch([stored('b', 101.5, ['1', '2'], null, 'CPU')]));
    m.apply(batch([stored('a', 101.6, ['5'], null, null)]));
    const k = m.kpis();
    expect(k.storedBlocks).toBe(8);
    expect(k.removedBlocks).toBe(2);
    // a/GPU: 2,3,4 ; a/unspecified: 5 ; b/CPU: 1,2
    expect(k.residentBlocks).toBe(6);
    expect(m.media()).toEqual(['GPU', 'CPU', 'unspecified']);
    expect(m.sourceStats('a').residentBlocks).toBe(4);
    expect(m.sourceStats('b').residentBlocks).toBe(2);
    expect(k.events).toBe(5);
    expect(m.nowTs()).toBe(101.6);
  });

  it('empties every medium of one source on AllBlocksCleared and marks it', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['1', '2']), stored('a', 10, ['3'], null, 'CPU')]));
    m.apply(batch([stored('b', 10, ['1'])]));
    m.apply(batch([cleared('a', 12)]));
    expect(m.kpis().residentBlocks).toBe(1);
    expect(m.kpis().clears).toBe(1);
    expect(m.kpis().removedBlocks).toBe(0);
    const s = m.series({ rangeSec: null });
    expect(s.markers).toEqual([
      { t: 12, kind: 'clear', source: 'a', detail: 'all blocks cleared' },
    ]);
    expect(s.points.at(-1)?.resident).toEqual([1, 0]);
  });

  it('starts a restarted source empty: the new engine holds none of the old blocks', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['1', '2', '3'])]));
    m.apply(batch([stored('b', 10, ['1'])]));
    m.apply({ k: 'reset', rec: { source: 'a', previousSeq: 41, at: 11 } });
    expect(m.kpis().residentBlocks).toBe(1);
    m.apply(batch([stored('a', 12, ['1', '4'])]));
    expect(m.sourceStats('a').residentBlocks).toBe(2);
    expect(m.kpis().residentBlocks).toBe(3);
    // The restart ended no block's life: block 2 has no lifetime.
    expect(m.block('2')?.lastLifetime).toBeNull();
    expect(m.series({ rangeSec: null }).points.at(-1)?.resident).toEqual([3]);
  });

  it('keeps what was resident through an outage: a restart empties the source from its own second on', () => {
    const m = new CacheModel();
    // Two ranks, both silent after 49.5 (the engine was killed), restarted at 62.
    m.apply(batch([stored('a', 48, ['1', '2'], null, 'CPU')]));
    m.apply(batch([stored('b', 48, ['3'])]));
    m.apply(batch([stored('a', 49.5, ['4'], null, 'CPU')]));
    m.apply(batch([stored('b', 49.5, ['5'])]));
    m.apply({ k: 'reset', rec: { source: 'a', previousSeq: 90, at: 62.2 } });
    m.apply(batch([stored('a', 62.2, ['6'], null, 'CPU')]));
    m.apply({ k: 'reset', rec: { source: 'b', previousSeq: 80, at: 62.4 } });
    const s = m.series({ rangeSec: null });
    const at = (t: number) => s.points.find((p) => p.t === t);
    // Every second before the restart keeps the old engine's blocks, the last one included.
    for (const t of [49, 50, 55, 61]) {
      expect(at(t)?.residentBy).toEqual([3, 2]);
      expect(at(t)?.resident).toEqual([3, 2]);
    }
    // From the restart's second on: a holds only its new block, b nothing.
    expect(at(62)?.residentBy).toEqual([1, 0]);
    expect(at(62)?.resident).toEqual([1, 0]);
    expect(s.markers.filter((x) => x.kind === 'reset').map((x) => x.t)).toEqual([62.2, 62.4]);
  });

  it('takes a removed source out of every total and every series', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['1', '2'])]));
    m.apply(batch([stored('b', 10, ['2', '3', '4'])]));
    m.apply({ k: 'gap', rec: { source: 'b', from: 4, to: 9, recovered: 2, lost: 4, at: 10 } });
    m.removeSource('b');
    const k = m.kpis();
    expect([k.storedBlocks, k.residentBlocks, k.events, k.gaps, k.lost]).toEqual([2, 2, 1, 0, 0]);
    expect(m.sources()).toEqual(['a']);
    expect(m.series({ rangeSec: null }).sources).toEqual(['a']);
    expect(m.block('2')?.holders).toBe(1);
    // The event log answers a's events alone.
    expect(m.events({ offset: 0, limit: 10 }).rows.map((r) => r.source)).toEqual(['a']);
    expect(m.events({ offset: 0, limit: 10, source: 'b' }).total).toBe(0);
    // Back again (reconnected): it counts from zero, its new events in the log.
    m.apply(batch([stored('b', 11, ['5'])]));
    expect(m.sources()).toEqual(['a', 'b']);
    expect(m.kpis().storedBlocks).toBe(3);
    expect(m.events({ offset: 0, limit: 10 }).rows.map((r) => r.source)).toEqual(['b', 'a']);
  });

  it('forgets a removed source on the charts: its residency history per source and per medium, its markers', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['1', '2'])]));
    m.apply(batch([stored('b', 10, ['3', '4', '5'])]));
    m.apply(batch([stored('b', 11, ['6'], null, 'CPU')]));
    m.apply(batch([cleared('b', 12)]));
    m.apply({ k: 'gap', rec: { source: 'b', from: 4, to: 9, recovered: 0, lost: 6, at: 12 } });
    m.apply({ k: 'reset', rec: { source: 'b', previousSeq: 9, at: 12 } });
    m.apply(batch([stored('b', 13, ['7'])]));
    m.apply({ k: 'gap', rec: { source: 'a', from: 2, to: 3, recovered: 1, lost: 1, at: 13 } });
    m.apply(batch([stored('a', 14, ['8'])]));
    // Before: b's share is in the GPU history, its CPU medium is drawn, its markers are shown.
    const before = m.series({ rangeSec: null });
    expect(before.media).toEqual(['GPU', 'CPU']);
    expect(before.points.map((p) => p.resident)).toEqual([
      [5, 0],
      [5, 1],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect(before.markers.filter((x) => x.source === 'b')).toHaveLength(3);
    m.removeSource('b');
    const after = m.series({ rangeSec: null });
    expect(after.sources).toEqual(['a']);
    expect(after.media).toEqual(['GPU']);
    // Every second of the history is a's alone, per medium and per source.
    expect(after.points.map((p) => p.resident)).toEqual([[2], [2], [2], [2], [3]]);
    expect(after.points.map((p) => p.residentBy)).toEqual([[2], [2], [2], [2], [3]]);
    expect(after.markers.map((x) => [x.kind, x.source])).toEqual([['gap', 'a']]);
  });

  it('says how much of the resident total belongs to stale sources', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 10, ['1', '2'])]));
    m.apply(batch([stored('b', 10, ['3'])]));
    const k = m.kpis(undefined, new Set(['a']));
    expect([k.residentBlocks, k.staleResidentBlocks]).toEqual([3, 2]);
  });

  it('counts gaps, lost, recovered, resets and undecoded records', () => {
    const m = new CacheModel();
    m.apply({ k: 'undecoded', rec: { source: 'a', seq: 3, bytes: 10, error: 'x', at: 1 } });
    m.apply(batch([stored('a', 50, ['1'])]));
    m.apply({ k: 'gap', rec: { source: 'a', from: 4, to: 9, recovered: 2, lost: 4, at: 50 } });
    m.apply({ k: 'reset', rec: { source: 'a', previousSeq: 9, at: 51 } });
    m.apply(batch([stored('a', 51, ['2'])]));
    const k = m.kpis();
    expect([k.gaps, k.lost, k.recovered, k.undecoded]).toEqual([1, 4, 2, 1]);
    expect(m.series({ rangeSec: null }).markers.map((x) => x.kind)).toEqual(['gap', 'reset']);
  });

  it('spans a gap with lost batches from the last batch before it, and one fully recovered not', () => {
    const m = new CacheModel();
    m.apply(batch([stored('a', 100, ['1'])]));
    m.apply({ k: 'gap', rec: { source: 'a', from: 1, to: 40, recovered: 10, lost: 30, at: 130 } });
    m.apply(batch([stored('a', 130, ['2'])]));
    m.apply({ k: 'gap', rec: { source: 'a', from: 42, to: 45, recovered: 4, lost: 0, at: 140 } });
    m.apply(batch([stored('a', 140, ['3'])]));
    const gaps = m.series({ rangeSec: null }).markers.filter((x) => x.kind === 'gap');
    expect(gaps.map((g) => [g.t, g.from])).toEqual([
      [130, 100],
      [140, undefined],
    ]);
  });

  it('reports stored and removed per second over the last 10 s of event time', () => {
    const m = new CacheModel();
    for (let t = 0; t < 30; t += 1) m.apply(batch([stored('a', 1000 + t, [`h${t}a`, `h${t}b`])]));
    m.apply(batch([removed('a', 1029.5, ['h29a', 'h28a', 'h27a', 'h26a', 'h25a'])]));
    const k = m.kpis();
    expect(k.storedPerSec).toBe(2);
    expect(k.removedPerSec).toBe(0.5);
    expect(m.sourceStats('a').storedPerSec).toBe(2);
    expect(m.sourceStats('nobody').storedPerSec).toBe(0);
  });

  it("rates a source that joined a few seconds ago over those seconds, not the window's 10", () => {
    const m = new CacheModel();
    for (let t = 0; t < 30; t += 1) m.apply(batch([stored('a', 1000 + t, [`a${t}`])]));
    // b joins at 1027 and stores 6 blocks a second: seconds 1027..1029.
    for (let t = 27; t < 30; t += 1) {
      m.apply(
        batch([
          stored(
            'b',
            1000 + t,
            [0, 1, 2, 3, 4, 5].map((j) => `b${t}-${j}`),
          ),
        ]),
      );
    }
    expect(m.sourceStats('b').storedPerSec).toBe(6);
    expect(m.sourceStats('a').storedPerSec).toBe(1);
    // The total stays over the whole window: (10 x 1 + 3 x 6) / 10.
    expect(m.kpis().storedPerSec).toBeCloseTo(2.8, 10);
  });

  it('rates a source over the part of its first second it was known for, not the whole second', () => {
    // 20 blocks a second, in batches every 0.1 s from 100.7 on: 0.3 s of second 100.
    const m = new CacheModel();
    const rates: number[] = [];
    for (let i = 0; i < 150; i += 1) {
      const ts = 100.7 + i / 10;
      m.apply(batch([stored('a', ts, [`x${i}`, `y${i}`])]));
      // Live, as each second is whole: its last batch in, read early in the next (settled).
      if (i % 10 === 2) {
        rates.push(m.sourceStats('a', Math.floor(ts) + 1.3).storedPerSec);
        // The total too, from the first batch of any source.
        rates.push(m.kpis(Math.floor(ts) + 1.3).storedPerSec);
      }
    }
    // From its first second (a part of one) on, and once that left the window, the true 20 a second.
    expect(rates).toHaveLength(30);
    for (const r of rates) expect(r).toBeCloseTo(20, 6);
  });
});
