import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Sequencer, type SequencerOptions } from '../../electron/ingest/sequencer';

type Ev =
  | { k: 'deliver'; seq: number; recovered: boolean; item: string }
  | { k: 'gap'; from: number; to: number; recovered: number; lost: number }
  | { k: 'reset'; previous: number }
  | { k: 'dup'; seq: number }
  | { k: 'request'; id: number; from: number };

function make(opts: SequencerOptions<string>) {
  const log: Ev[] = [];
  const s = new Sequencer<string>(opts, {
    deliver: (seq, item, recovered) =>
      log.push({ k: 'deliver', seq: Number(seq), recovered, item }),
    gap: (g) =>
      log.push({
        k: 'gap',
        from: Number(g.from),
        to: Number(g.to),
        recovered: g.recovered,
        lost: g.lost,
      }),
    reset: (previous) => log.push({ k: 'reset', previous: Number(previous) }),
    duplicate: (seq) => log.push({ k: 'dup', seq: Number(seq) }),
    request: (id, from) => log.push({ k: 'request', id, from: Number(from) }),
  });
  const feed = (...seqs: number[]) => {
    for (const q of seqs) s.receive(BigInt(q), `live${q}`, 10, 0);
  };
  const delivered = () =>
    log.filter((e) => e.k === 'deliver').map((e) => (e as { seq: number }).seq);
  const of = <K extends Ev['k']>(k: K) => log.filter((e) => e.k === k) as Extract<Ev, { k: K }>[];
  const replay = (id: number, seqs: number[], now = 0) =>
    s.replayed(
      id,
      seqs.map((q) => ({ seq: BigInt(q), item: `replay${q}`, bytes: 10 })),
      now,
    );
  return { s, log, feed, delivered, of, replay };
}

describe('sequencer without a replay endpoint', () => {
  it('delivers an unbroken run in order and treats the first seq seen as the start, not a gap', () => {
    const t = make({ replay: false });
    t.feed(40, 41, 42, 43);
    expect(t.delivered()).toEqual([40, 41, 42, 43]);
    expect(t.of('gap')).toEqual([]);
  });

  it('records a gap as lost with its size at once and keeps delivering', () => {
    const t = make({ replay: false });
    t.feed(0, 1, 5, 6);
    expect(t.delivered()).toEqual([0, 1, 5, 6]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 2, to: 4, recovered: 0, lost: 3 }]);
    const gapAt = t.log.findIndex((e) => e.k === 'gap');
    const fiveAt = t.log.findIndex((e) => e.k === 'deliver' && e.seq === 5);
    expect(gapAt).toBeLessThan(fiveAt);
  });

  it('drops a repeated seq as a duplicate', () => {
    const t = make({ replay: false });
    t.feed(0, 1, 2, 2, 1, 3);
    expect(t.delivered()).toEqual([0, 1, 2, 3]);
    expect(t.of('dup').map((d) => d.seq)).toEqual([2, 1]);
  });

  it('reads seq back to 0 as a publisher restart, not a gap or a duplicate', () => {
    const t = make({ replay: false });
    t.feed(7, 8, 9, 0, 1);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 9 }]);
    expect(t.of('gap')).toEqual([]);
    expect(t.of('dup')).toEqual([]);
    expect(t.delivered()).toEqual([7, 8, 9, 0, 1]);
  });

  it('reads a seq far below the last as a restart whose first batches were missed', () => {
    const t = make({ replay: false, resetWindow: 64n });
    t.feed(1000, 1001, 3, 4);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 1001 }]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 2, recovered: 0, lost: 3 }]);
    expect(t.delivered()).toEqual([1000, 1001, 3, 4]);
  });

  it('calls a seq just below the last (within the window) a duplicate, not a restart', () => {
    const t = make({ replay: false, resetWindow: 64n });
    t.feed(1000, 1001, 1001 - 60);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('dup').map((d) => d.seq)).toEqual([941]);
  });
});

describe('sequencer telling duplicates from restarts by content', () => {
  // Items are `live<seq>` for the first run; a restarted engine sends different bytes.
  const same = (a: string, b: string) => a === b;

  it('drops a repeat of the very message delivered under that seq as a duplicate', () => {
    const t = make({ replay: false, same });
    t.feed(5, 6, 7);
    t.s.receive(6n, 'live6', 10, 0);
    expect(t.of('dup').map((d) => d.seq)).toEqual([6]);
    expect(t.of('reset')).toEqual([]);
  });

  it('reads a different message under a recent seq as a restart after a short run', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    // The engine restarted; its seqs 0..2 went by before we reconnected.
    t.s.receive(3n, 'new3', 10, 0);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 10 }]);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 0 }]);
    t.s.replayed(
      1,
      [0n, 1n, 2n, 3n].map((q) => ({ seq: q, item: `new${q}`, bytes: 1 })),
      0,
    );
    expect(
      t
        .of('deliver')
        .slice(-4)
        .map((d) => d.item),
    ).toEqual(['new0', 'new1', 'new2', 'new3']);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 2, recovered: 3, lost: 0 }]);
  });

  it('a seq 0 repeat that is the same message stays a duplicate', () => {
    const t = make({ replay: false, same });
    t.feed(0, 1);
    t.s.receive(0n, 'live0', 10, 0);
    expect(t.of('dup').map((d) => d.seq)).toEqual([0]);
    expect(t.of('reset')).toEqual([]);
  });
});

describe('sequencer with a replay endpoint', () => {
  it('holds later batches, asks from the first missing seq, and merges the answer in order', () => {
    const t = make({ replay: true });
    t.feed(0, 1, 4, 5);
    expect(t.delivered()).toEqual([0, 1]);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 2 }]);
    expect(t.s.heldCount).toBe(2);
    // The engine answers every buffered batch from 2 on, including ones we already hold.
    t.replay(1, [2, 3, 4, 5]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5]);
    const items = t.of('deliver').map((d) => d.item);
    expect(items).toEqual(['live0', 'live1', 'replay2', 'replay3', 'live4', 'live5']);
    expect(
      t
        .of('deliver')
        .filter((d) => d.recovered)
        .map((d) => d.seq),
    ).toEqual([2, 3]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 2, to: 3, recovered: 2, lost: 0 }]);
    expect(t.s.waiting).toBe(false);
  });

  it('counts as lost what the engine no longer has and recovers the rest', () => {
    const t = make({ replay: true });
    t.feed(0, 10);
    // Buffer evicted 1..5: the engine only gives 6..10.
    t.replay(1, [6, 7, 8, 9, 10]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 9, recovered: 4, lost: 5 }]);
    expect(t.delivered()).toEqual([0, 6, 7, 8, 9, 10]);
  });

  it('gives up after the timeout: the missing seqs are lost and the held batches delivered', () => {
    const t = make({ replay: true, replayTimeoutMs: 1000 });
    t.s.receive(0n, 'a', 1, 0);
    t.s.receive(3n, 'b', 1, 100);
    t.s.receive(4n, 'c', 1, 200);
    t.s.tick(999);
    expect(t.delivered()).toEqual([0]);
    t.s.tick(1100);
    expect(t.delivered()).toEqual([0, 3, 4]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 2, recovered: 0, lost: 2 }]);
    // A late answer to the abandoned request changes nothing.
    t.replay(1, [1, 2]);
    expect(t.delivered()).toEqual([0, 3, 4]);
  });

  it('gives up when the held batches pass the bound', () => {
    const t = make({ replay: true, maxHeldBatches: 3 });
    t.feed(0, 2, 3, 4);
    expect(t.delivered()).toEqual([0]);
    t.feed(5);
    expect(t.delivered()).toEqual([0, 2, 3, 4, 5]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 1, recovered: 0, lost: 1 }]);
  });

  it('gives up when the held bytes pass the bound', () => {
    const t = make({ replay: true, maxHeldBytes: 25 });
    t.feed(0, 2, 3);
    expect(t.delivered()).toEqual([0]);
    t.feed(4);
    expect(t.delivered()).toEqual([0, 2, 3, 4]);
  });

  it('drops a live duplicate of a held batch while a gap is pending', () => {
    const t = make({ replay: true });
    t.feed(0, 2, 2, 3);
    expect(t.of('dup').map((d) => d.seq)).toEqual([2]);
    t.replay(1, [1, 2, 3]);
    expect(t.delivered()).toEqual([0, 1, 2, 3]);
  });

  it('settles a second gap that opened while waiting from the same answer', () => {
    const t = make({ replay: true });
    t.feed(0, 2, 5);
    expect(t.of('request')).toHaveLength(1);
    t.replay(1, [1, 2, 3, 4, 5]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(t.of('gap')).toEqual([
      { k: 'gap', from: 1, to: 1, recovered: 1, lost: 0 },
      { k: 'gap', from: 3, to: 4, recovered: 2, lost: 0 },
    ]);
  });

  it('asks again for a gap past what the answer covered', () => {
    const t = make({ replay: true });
    t.feed(0, 2);
    // The engine answered before 3..9 existed; meanwhile 3 and 9 arrived live (4..8 missed).
    t.feed(3, 9);
    t.replay(1, [1, 2]);
    expect(t.delivered()).toEqual([0, 1, 2, 3]);
    expect(t.of('request')).toEqual([
      { k: 'request', id: 1, from: 1 },
      { k: 'request', id: 2, from: 4 },
    ]);
    t.replay(2, [4, 5, 6, 7, 8, 9]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(t.of('gap').reduce((n, g) => n + g.lost, 0)).toBe(0);
  });

  it('a restart while a gap is pending settles the gap first, then resets', () => {
    const t = make({ replay: true });
    t.feed(100, 101, 104, 0);
    expect(t.delivered()).toEqual([100, 101, 104, 0]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 102, to: 103, recovered: 0, lost: 2 }]);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 104 }]);
  });

  it('replayed batches already delivered are ignored, and later live copies count as duplicates', () => {
    const t = make({ replay: true });
    t.feed(0, 1, 3);
    t.replay(1, [0, 1, 2, 3, 4]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4]);
    t.feed(4, 5);
    expect(t.of('dup').map((d) => d.seq)).toEqual([4]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('whatever the arrival order and drops, delivers strictly increasing seqs and accounts for every seq', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }),
        fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
        (dropLive, evicted) => {
          const t = make({ replay: true, maxHeldBatches: 50 });
          const n = dropLive.length;
          t.feed(0);
          for (let q = 1; q <= n; q++) {
            if (!dropLive[q - 1]) t.feed(q);
            for (const r of t.of('request').slice(-1)) {
              if (t.s.waiting && q % 7 === 0) {
                const avail = [];
                for (let x = r.from; x <= q; x++) if (!evicted[x % 200]) avail.push(x);
                t.replay(r.id, avail);
              }
            }
          }
          t.s.giveUp(0);
          const d = t.delivered();
          for (let i = 1; i < d.length; i++) expect(d[i]! > d[i - 1]!).toBe(true);
          const lost = t.of('gap').reduce((a, g) => a + g.lost, 0);
          // Every seq up to the last delivered is either delivered or counted lost.
          expect(d.length + lost).toBe((d[d.length - 1] ?? 0) + 1);
        },
      ),
      { numRuns: 200 },
    );
  });
});
