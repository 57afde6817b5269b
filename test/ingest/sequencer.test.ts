import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Sequencer, type SequencerOptions } from '../../electron/ingest/sequencer';

type Ev =
  | { k: 'deliver'; seq: number; recovered: boolean; item: string }
  | { k: 'gap'; from: number; to: number; recovered: number; lost: number }
  | { k: 'reset'; previous: number }
  | { k: 'dup'; seq: number }
  | { k: 'rejected' }
  | { k: 'foreign'; seq: number }
  | { k: 'bad'; seq: bigint; newest: number | null }
  | { k: 'request'; id: number; from: number };

function make(opts: SequencerOptions<string>) {
  const log: Ev[] = [];
  /** The batch each reset was dated by, in order. */
  const resetItems: string[] = [];
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
    reset: (previous, item) => {
      resetItems.push(item);
      log.push({ k: 'reset', previous: Number(previous) });
    },
    duplicate: (seq) => log.push({ k: 'dup', seq: Number(seq) }),
    rejected: () => log.push({ k: 'rejected' }),
    foreign: (seq) => log.push({ k: 'foreign', seq: Number(seq) }),
    badSeq: (seq, _item, newest) =>
      log.push({ k: 'bad', seq, newest: newest === null ? null : Number(newest) }),
    request: (id, from) => log.push({ k: 'request', id, from: Number(from) }),
  });
  const feed = (...seqs: number[]) => {
    for (const q of seqs) s.receive(BigInt(q), `live${q}`, 10, 0);
  };
  const delivered = () =>
    log.filter((e) => e.k === 'deliver').map((e) => (e as { seq: number }).seq);
  const of = <K extends Ev['k']>(k: K) => log.filter((e) => e.k === k) as Extract<Ev, { k: K }>[];
  /** The engine answers request `id` with these seqs, then its end marker (unless `end` is false). */
  const replay = (id: number, seqs: number[], now = 0, end = true) => {
    for (const q of seqs) s.replayedBatch(id, BigInt(q), `replay${q}`, now);
    if (end) s.replayEnded(id, true, now);
  };
  const lost = () => of('gap').reduce((n, g) => n + g.lost, 0);
  const recovered = () => of('gap').reduce((n, g) => n + g.recovered, 0);
  return { s, log, feed, delivered, of, replay, lost, recovered, resetItems };
}

describe('sequencer on absurd seqs', () => {
  it('reports a seq far past the newest as a bad frame without moving the cursor or losing counts', () => {
    for (const replay of [false, true]) {
      const t = make({ replay });
      t.feed(0, 1, 2);
      t.s.receive(2n ** 62n, 'bogus', 10, 0);
      t.s.receive(2n ** 40n + 3n, 'bogus2', 10, 0);
      t.feed(3, 4);
      expect(t.delivered()).toEqual([0, 1, 2, 3, 4]);
      expect(t.of('bad')).toEqual([
        { k: 'bad', seq: 2n ** 62n, newest: 2 },
        { k: 'bad', seq: 2n ** 40n + 3n, newest: 2 },
      ]);
      expect(t.of('gap')).toEqual([]);
      expect(t.of('reset')).toEqual([]);
      expect(t.of('request')).toEqual([]);
      // A jump of exactly 2^40 is still a gap, counted exactly.
      t.s.receive(2n ** 40n + 4n, 'far', 10, 0);
      if (replay) t.s.giveUp();
      expect(t.lost()).toBe(2 ** 40 - 1);
    }
  });

  it('refuses a first seq that is not exact as a number (past 2^53 - 1)', () => {
    const t = make({ replay: false });
    t.s.receive(2n ** 53n, 'bogus', 10, 0);
    t.feed(7, 8);
    expect(t.of('bad')).toEqual([{ k: 'bad', seq: 2n ** 53n, newest: null }]);
    expect(t.delivered()).toEqual([7, 8]);
  });
});

describe('sequencer without a replay endpoint', () => {
  it('delivers an unbroken run in order and treats the first seq seen as the start, not a gap', () => {
    const t = make({ replay: false });
    t.feed(40, 41, 42, 43);
    expect(t.delivered()).toEqual([40, 41, 42, 43]);
    expect(t.of('gap')).toEqual([]);
  });

  it('reads a stream said to start after now from seq 0: its missed start is a gap', () => {
    const t = make({ replay: false });
    t.s.expectStart();
    t.feed(3, 4);
    expect(t.delivered()).toEqual([3, 4]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 2, recovered: 0, lost: 3 }]);
    // Once a batch is settled, it changes nothing.
    t.s.expectStart();
    t.feed(5);
    expect(t.delivered()).toEqual([3, 4, 5]);
    expect(t.of('gap')).toHaveLength(1);
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
    for (const q of [0n, 1n, 2n, 3n]) t.s.replayedBatch(1, q, `new${q}`, 0);
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
    const t = make({ replay: true, replayIdleMs: 1000 });
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

  it('replayed seqs below the start are rejected, never applied; the rest of the answer still counts', () => {
    const t = make({ replay: true });
    t.feed(0, 1, 3);
    t.replay(1, [0, 1, 2, 3, 4]);
    expect(t.of('rejected')).toHaveLength(2);
    expect(t.of('deliver').map((d) => d.item)).toEqual(['live0', 'live1', 'replay2', 'live3']);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 2, to: 2, recovered: 1, lost: 0 }]);
    t.feed(4, 5);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(t.of('dup')).toEqual([]);
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
          t.s.giveUp();
          const d = t.delivered();
          for (let i = 1; i < d.length; i++) expect(d[i]! > d[i - 1]!).toBe(true);
          // Every seq up to the last delivered is either delivered or counted lost, once.
          expect(d.length + t.lost()).toBe((d[d.length - 1] ?? 0) + 1);
          const fromReplay = t.of('deliver').filter((x) => x.recovered).length;
          expect(t.recovered()).toBe(fromReplay);
          expect(t.of('reset')).toEqual([]);
          // An answer past the newest live seq is refused once and ends its exchange.
          expect(t.of('rejected').length).toBeLessThanOrEqual(t.of('request').length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('sequencer taking a backlog through replay', () => {
  it('applies replay frames as they arrive, before the answer ends', () => {
    const t = make({ replay: true });
    t.feed(0, 5);
    t.replay(1, [1, 2], 0, false);
    expect(t.delivered()).toEqual([0, 1, 2]);
    expect(t.s.waiting).toBe(true);
  });

  it('takes a 10,000-batch answer in full with a live backlog held behind it; what the engine lost is counted once', () => {
    const t = make({ replay: true });
    t.feed(999);
    // The consumer fell behind: the live stream resumes at 20,000 and goes on to 24,999.
    for (let q = 20_000; q < 25_000; q++) t.feed(q);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 1000 }]);
    expect(t.s.heldCount).toBe(5000);
    // The engine's buffer holds the last 10,000 batches it published (15,000..24,999).
    t.replay(
      1,
      Array.from({ length: 10_000 }, (_, i) => 15_000 + i),
    );
    const d = t.delivered();
    expect(d.length).toBe(1 + 5000 + 5000);
    expect(d.every((q, i) => i === 0 || q > d[i - 1]!)).toBe(true);
    expect(t.of('gap')).toEqual([
      { k: 'gap', from: 1000, to: 19_999, recovered: 5000, lost: 14_000 },
    ]);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('rejected')).toEqual([]);
    expect(t.s.waiting).toBe(false);
  });

  it('stops reading the answer once nothing is held (the rest would only be rejected)', () => {
    const t = make({ replay: true });
    t.feed(0, 3);
    expect(t.s.replayedBatch(1, 1n, 'replay1', 0)).toBe(true);
    expect(t.s.replayedBatch(1, 2n, 'replay2', 0)).toBe(false);
    expect(t.s.waiting).toBe(false);
    expect(t.of('rejected')).toEqual([]);
  });

  it('rejects repeated, out-of-order and unreadable frames without applying them or moving lost', () => {
    const t = make({ replay: true });
    t.feed(0, 10);
    t.s.replayedBatch(1, 3n, 'replay3', 0);
    t.s.replayedBatch(1, 3n, 'again3', 0);
    t.s.replayedBatch(1, 2n, 'replay2', 0);
    t.s.replayedGarbage(1);
    expect(t.of('rejected')).toHaveLength(3);
    expect(t.of('deliver').map((d) => d.item)).toEqual(['live0', 'replay3']);
    t.replay(1, [4, 5, 6, 7, 8, 9]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 9, recovered: 7, lost: 2 }]);
  });

  it('a seq beyond the newest live one is rejected, ends the exchange, and invents no loss past it', () => {
    const t = make({ replay: true });
    t.feed(0, 5);
    expect(t.s.replayedBatch(1, 2n ** 40n, 'far', 0)).toBe(false);
    expect(t.of('rejected')).toHaveLength(1);
    expect(t.delivered()).toEqual([0, 5]);
    expect(t.lost()).toBe(4);
    t.feed(6, 7);
    expect(t.delivered()).toEqual([0, 5, 6, 7]);
    expect(t.of('request')).toHaveLength(1);
  });

  it('a bad answer settles every hole held and asks nothing more for them (no request storm)', () => {
    const t = make({ replay: true });
    t.feed(0);
    for (let q = 2; q < 200; q += 2) t.feed(q); // every other batch missing
    t.s.replayedGarbage(1);
    t.s.replayEnded(1, true, 0);
    expect(t.of('request')).toHaveLength(1);
    expect(t.lost()).toBe(99);
    expect(t.s.waiting).toBe(false);
    // The next hole the live stream shows is asked for once.
    t.feed(200, 210);
    expect(t.of('request')).toHaveLength(2);
  });

  it('an answer with no end marker and no progress is given up after the idle time, not before', () => {
    const t = make({ replay: true, replayIdleMs: 1000 });
    t.s.receive(0n, 'live0', 1, 0);
    t.s.receive(100n, 'live100', 1, 0);
    // Progress keeps it open long past one idle time: an idle timeout, not a total one.
    for (let q = 1; q < 50; q++) {
      t.s.replayedBatch(1, BigInt(q), `replay${q}`, q * 500);
      t.s.tick(q * 500);
    }
    expect(t.s.waiting).toBe(true);
    expect(t.delivered().length).toBe(50);
    // Then it repeats itself forever: rejected frames are no progress.
    for (let i = 0; i < 100; i++) t.s.replayedBatch(1, 49n, 'again', 24_500 + i);
    t.s.tick(25_400);
    expect(t.s.waiting).toBe(true);
    t.s.tick(25_500);
    expect(t.s.waiting).toBe(false);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 99, recovered: 49, lost: 50 }]);
    expect(t.of('rejected')).toHaveLength(100);
    expect(t.of('request')).toHaveLength(1);
  });

  it('live batches far past an open gap are held, never read as a restart', () => {
    const t = make({ replay: true, same: (a, b) => a === b });
    t.feed(0, 1, 100_000, 100_001);
    expect(t.of('reset')).toEqual([]);
    expect(t.delivered()).toEqual([0, 1]);
    t.s.replayEnded(1, true, 0);
    expect(t.delivered()).toEqual([0, 1, 100_000, 100_001]);
    expect(t.lost()).toBe(100_000 - 2);
    expect(t.of('reset')).toEqual([]);
  });

  it('still sees a restart (seq back to 0) after a long stall that was recovered by replay', () => {
    const t = make({ replay: true, same: (a, b) => a === b });
    t.feed(0, 1, 5000);
    t.replay(
      1,
      Array.from({ length: 4999 }, (_, i) => i + 2),
    );
    expect(t.s.waiting).toBe(false);
    t.s.receive(0n, 'new0', 10, 0);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 5000 }]);
  });
});

describe('sequencer probing a quiet source', () => {
  it('asks once for anything after the last seq and reports a recovered tail as a gap once still quiet', () => {
    const t = make({ replay: true });
    t.feed(0, 1, 2);
    expect(t.s.probe(0)).toBe(true);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 3 }]);
    t.replay(1, [3, 4, 5]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5]);
    // Their live copies may still be on the way: nothing is a gap yet.
    expect(t.of('gap')).toEqual([]);
    // Quiet for another probe period: they are not coming.
    expect(t.s.probe(0)).toBe(false);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 3, to: 5, recovered: 3, lost: 0 }]);
    // Once per quiet episode: a new live batch allows the next probe.
    expect(t.s.probe(0)).toBe(false);
    t.feed(6);
    expect(t.s.probe(0)).toBe(true);
  });

  it('an empty answer to a probe changes nothing', () => {
    const t = make({ replay: true });
    t.feed(0, 1);
    t.s.probe(0);
    t.replay(1, []);
    expect(t.of('gap')).toEqual([]);
    expect(t.delivered()).toEqual([0, 1]);
  });

  it('takes no probe answer that starts past the seq asked; the next batch live opens a gap that counts it', () => {
    const t = make({ replay: true, probeReach: 1000n });
    t.feed(0);
    t.s.probe(0);
    // The engine skipped what it no longer holds, or the answer is another engine's: nothing
    // overlaps to tell, so nothing of it is applied.
    expect(t.s.replayedBatch(1, 5n, 'replay5', 0)).toBe(false);
    t.s.replayedBatch(1, 6n, 'replay6', 0);
    expect(t.delivered()).toEqual([0]);
    expect([...t.of('gap'), ...t.of('rejected'), ...t.of('foreign')]).toEqual([]);
    // The engine's next batch live opens a gap: its answer, checked by the held batch, counts
    // the skipped part lost and recovers the rest.
    t.feed(7);
    expect(t.of('request').at(-1)).toEqual({ k: 'request', id: 2, from: 1 });
    t.replay(2, [5, 6, 7]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 6, recovered: 2, lost: 4 }]);
    expect(t.delivered()).toEqual([0, 5, 6, 7]);
    // A probe answer past its reach is refused as before.
    t.s.probe(0);
    expect(t.s.replayedBatch(3, 5000n, 'far', 0)).toBe(false);
    expect(t.of('rejected')).toHaveLength(1);
    expect(t.lost()).toBe(4);
  });

  it('live copies of what a probe already delivered are neither duplicates, a gap nor a restart', () => {
    const t = make({ replay: true, same: (a, b) => a === b });
    t.feed(0, 1);
    t.s.probe(0);
    t.replay(
      1,
      Array.from({ length: 200 }, (_, i) => i + 2),
    );
    // The live copies were still on their way.
    for (let q = 2; q < 202; q++) t.feed(q);
    t.feed(202);
    t.s.probe(0);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('dup')).toEqual([]);
    expect(t.of('gap')).toEqual([]);
    expect(t.delivered()).toEqual(Array.from({ length: 203 }, (_, i) => i));
    expect(t.delivered().at(-1)).toBe(202);
  });

  it('counts a probe truly in every order of its answer, its live copies and a quiet period', () => {
    // Seqs 3..6 are published after the last live batch (2); `missed` never arrive live. Every
    // interleaving of the answer (2..6, then its end) with the live copies that do come (in
    // order), then either quiet or a next live batch (7): each seq delivered once, in order;
    // the gaps are exactly the runs the live stream missed, all recovered; nothing duplicate.
    const seqs = [3, 4, 5, 6];
    const orders = (a: string[], b: string[]): string[][] =>
      a.length === 0 || b.length === 0
        ? [[...a, ...b]]
        : [
            ...orders(a.slice(1), b).map((o) => [a[0]!, ...o]),
            ...orders(a, b.slice(1)).map((o) => [b[0]!, ...o]),
          ];
    let cases = 0;
    for (let mask = 0; mask < 1 << seqs.length; mask++) {
      const missed = seqs.filter((_, i) => (mask & (1 << i)) !== 0);
      const live = seqs.filter((q) => !missed.includes(q)).map((q) => `l${q}`);
      // The answer starts at the seq the probe asks again (2, to check the run), as an engine's does.
      const answer = ['r2', ...seqs.map((q) => `r${q}`), 'end'];
      for (const order of orders(answer, live)) {
        for (const finish of ['quiet', 'next'] as const) {
          cases++;
          const t = make({ replay: true, same: (a, b) => a.slice(-1) === b.slice(-1) });
          t.feed(0, 1, 2);
          expect(t.s.probe(0)).toBe(true);
          for (const step of order) {
            if (step === 'end') t.s.replayEnded(1, true, 0);
            else if (step[0] === 'r') t.s.replayedBatch(1, BigInt(step.slice(1)), step, 0);
            else t.feed(Number(step.slice(1)));
          }
          if (finish === 'quiet') t.s.probe(0);
          else t.feed(7);
          const runs: { from: number; to: number }[] = [];
          for (const q of missed) {
            const r = runs.at(-1);
            if (r !== undefined && r.to === q - 1) r.to = q;
            else runs.push({ from: q, to: q });
          }
          const why = `${order.join(' ')} ${finish}`;
          expect(t.delivered(), why).toEqual(
            finish === 'next' ? [0, 1, 2, ...seqs, 7] : [0, 1, 2, ...seqs],
          );
          expect(t.of('dup'), why).toEqual([]);
          expect(t.of('reset'), why).toEqual([]);
          expect(
            t
              .of('gap')
              .map((g) => ({ from: g.from, to: g.to, recovered: g.recovered, lost: g.lost })),
            why,
          ).toEqual(runs.map((r) => ({ ...r, recovered: r.to - r.from + 1, lost: 0 })));
        }
      }
    }
    expect(cases).toBeGreaterThan(500);
  });

  it('settles what a probe delivered ahead when the source closes or the publisher restarts', () => {
    const closing = make({ replay: true });
    closing.feed(0);
    closing.s.probe(0);
    closing.replay(1, [1, 2]);
    closing.s.giveUp();
    expect(closing.of('gap')).toEqual([{ k: 'gap', from: 1, to: 2, recovered: 2, lost: 0 }]);
    const restart = make({ replay: true });
    restart.feed(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    restart.s.probe(0);
    restart.replay(1, [10, 11]);
    restart.feed(0);
    expect(restart.of('gap')).toEqual([{ k: 'gap', from: 10, to: 11, recovered: 2, lost: 0 }]);
    expect(restart.of('reset')).toEqual([{ k: 'reset', previous: 11 }]);
  });

  it('never probes without a replay endpoint or before the first batch', () => {
    expect(make({ replay: false }).s.probe(0)).toBe(false);
    expect(make({ replay: true }).s.probe(0)).toBe(false);
  });
});

describe('sequencer with an answer torn on the way', () => {
  it('asks again from a hole inside an answer instead of counting it lost', () => {
    const t = make({ replay: true });
    t.feed(0, 10);
    // Frames 4 and 5 were dropped at the engine's ROUTER: they are still in its buffer.
    expect(t.s.replayedBatch(1, 1n, 'replay1', 0)).toBe(true);
    t.s.replayedBatch(1, 2n, 'replay2', 0);
    t.s.replayedBatch(1, 3n, 'replay3', 0);
    expect(t.s.replayedBatch(1, 6n, 'replay6', 0)).toBe(false);
    expect(t.of('request')).toEqual([
      { k: 'request', id: 1, from: 1 },
      { k: 'request', id: 2, from: 4 },
    ]);
    t.replay(2, [4, 5, 6, 7, 8, 9, 10]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 1, to: 9, recovered: 9, lost: 0 }]);
  });

  it('gives a torn answer up after three retries: the holes are lost, no more requests', () => {
    const t = make({ replay: true });
    t.feed(0, 10);
    for (let id = 1; id <= 4; id++) {
      const from = t.of('request').at(-1)!.from;
      t.s.replayedBatch(id, BigInt(from), `replay${from}`, 0);
      t.s.replayedBatch(id, BigInt(from + 2), `replay${from + 2}`, 0);
    }
    expect(t.of('request')).toHaveLength(4);
    expect(t.s.waiting).toBe(false);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4, 10]);
    expect(t.lost()).toBe(5);
  });
});

describe('sequencer resumed after a reconnect', () => {
  it('takes what the engine published meanwhile as a gap, and a seq at or below the last as a restart', () => {
    const same = (a: string, b: string): boolean => a === b;
    const gap = make({ replay: false, same });
    gap.s.resumeAfter(10n);
    gap.feed(15, 16);
    expect(gap.delivered()).toEqual([15, 16]);
    expect(gap.of('gap')).toEqual([{ k: 'gap', from: 11, to: 14, recovered: 0, lost: 4 }]);

    const asked = make({ replay: true, same });
    asked.s.resumeAfter(10n);
    asked.feed(13);
    expect(asked.of('request')).toEqual([{ k: 'request', id: 1, from: 11 }]);
    asked.replay(1, [11, 12]);
    expect(asked.delivered()).toEqual([11, 12, 13]);

    // Nothing of the old run is kept to compare with: a seq not past the last is a new run.
    for (const seq of [10, 3, 0]) {
      const restarted = make({ replay: false, same });
      restarted.s.resumeAfter(10n);
      restarted.feed(seq);
      expect(restarted.of('reset')).toEqual([{ k: 'reset', previous: 10 }]);
    }
  });
});

describe('sequencer with a publisher that restarted while we were not reading', () => {
  const same = (a: string, b: string): boolean => a === b;

  it('asks a gap from its last batch; the same batch answering, it merges the rest as before', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 4);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 1 }]);
    // The engine's batch 1 is the one delivered: the same run, 2 and 3 recovered.
    t.s.replayedBatch(1, 1n, 'live1', 0);
    t.replay(1, [2, 3, 4]);
    expect(t.delivered()).toEqual([0, 1, 2, 3, 4]);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 2, to: 3, recovered: 2, lost: 0 }]);
  });

  it('reads another batch under the last seq as a restart, and asks for the new run from 0', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2);
    // The new engine, past our last seq by the time we read again.
    t.feed(7, 8);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 2 }]);
    // Another batch under 2: a restart, or another publisher's answer. The answer's copy of the
    // first batch held live tells; until then nothing of it is applied.
    expect(t.s.replayedBatch(1, 2n, 'new2', 0)).toBe(true);
    for (let q = 3; q <= 6; q++) expect(t.s.replayedBatch(1, BigInt(q), `new${q}`, 0)).toBe(true);
    expect(t.delivered()).toEqual([0, 1, 2]);
    expect(t.of('request')).toHaveLength(1);
    // The engine that answered holds the batch received live under 7: it restarted.
    expect(t.s.replayedBatch(1, 7n, 'live7', 0)).toBe(false);
    expect(t.of('request').at(-1)).toEqual({ k: 'request', id: 2, from: 0 });
    // The rest of the first answer is not read: the second one gives the new run.
    expect(t.s.replayedBatch(1, 8n, 'live8', 0)).toBe(false);
    // The reset is said with the new run's first batch, and dated by it (not by new2).
    expect(t.of('reset')).toEqual([]);
    for (let q = 0; q <= 6; q++) t.s.replayedBatch(2, BigInt(q), `new${q}`, 0);
    t.s.replayEnded(2, true, 0);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 2 }]);
    expect(t.resetItems).toEqual(['new0']);
    const at = t.log.findIndex((e) => e.k === 'reset');
    expect(t.log[at + 1]).toMatchObject({ k: 'deliver', item: 'new0' });
    expect(t.of('deliver').map((d) => d.item)).toEqual([
      'live0',
      'live1',
      'live2',
      ...[0, 1, 2, 3, 4, 5, 6].map((q) => `new${q}`),
      'live7',
      'live8',
    ]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 6, recovered: 7, lost: 0 }]);
    expect(t.s.waiting).toBe(false);
    // Live goes on in the new run.
    t.feed(9);
    expect(t.delivered().at(-1)).toBe(9);
    expect(t.of('reset')).toHaveLength(1);
  });

  it('counts what the new run no longer holds as lost', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2, 30);
    t.s.replayedBatch(1, 2n, 'new2', 0);
    t.s.replayedBatch(1, 30n, 'live30', 0);
    // Its buffer begins at 25 now; its 30 is the one received live.
    t.replay(2, [25, 26, 27, 28, 29], 0, false);
    t.s.replayedBatch(2, 30n, 'live30', 0);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 2 }]);
    expect(t.resetItems).toEqual(['replay25']);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 29, recovered: 5, lost: 25 }]);
    expect(t.delivered().slice(3)).toEqual([25, 26, 27, 28, 29, 30]);
  });

  it('cannot tell when the engine no longer holds the last seq: the answer merges as before', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2, 9);
    t.replay(1, [5, 6, 7, 8, 9]);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 3, to: 8, recovered: 4, lost: 2 }]);
  });

  it('checks a resumed stream against the batch kept from before it (a reconnect)', () => {
    const kept = make({ replay: true, same });
    kept.feed(0, 1, 2);
    expect(kept.s.lastItem()).toBe('live2');

    const t = make({ replay: true, same });
    t.s.resumeAfter(10n, 'old10');
    t.feed(20);
    expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 10 }]);
    t.s.replayedBatch(1, 10n, 'new10', 0);
    t.s.replayedBatch(1, 20n, 'live20', 0);
    // The new run's replay brings nothing: the reset is said as the exchange ends, before the
    // held live batch, the new run's first applied (0..19 lost), which dates it.
    t.replay(2, []);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 10 }]);
    expect(t.resetItems).toEqual(['live20']);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 19, recovered: 0, lost: 20 }]);

    const same10 = make({ replay: true, same });
    same10.s.resumeAfter(10n, 'old10');
    same10.feed(13);
    same10.s.replayedBatch(1, 10n, 'old10', 0);
    same10.replay(1, [11, 12, 13]);
    expect(same10.of('reset')).toEqual([]);
    expect(same10.delivered()).toEqual([11, 12, 13]);
  });
});

/** A sequencer with `same` that delivered 0..100 and then, the source quiet, probed from 100. */
function probedAt100() {
  const t = make({ replay: true, same: (a: string, b: string): boolean => a === b });
  t.feed(...Array.from({ length: 101 }, (_, q) => q));
  expect(t.s.probe(0)).toBe(true);
  expect(t.of('request')).toEqual([{ k: 'request', id: 1, from: 100 }]);
  return t;
}

describe('sequencer probing a publisher that only paused', () => {
  it('takes a late answer naming its last batch as the same run, however far the live stream went', () => {
    // The publisher stopped (SIGSTOP) long enough for a probe; when it went on, it published a
    // burst before it answered, and the ring of recent batches moved past the one asked again.
    const t = probedAt100();
    t.feed(...Array.from({ length: 500 }, (_, q) => 101 + q));
    expect(t.s.replayedBatch(1, 100n, 'live100', 0)).toBe(true);
    t.replay(1, [101, 102, 103]);
    t.feed(601, 602);
    expect(t.of('reset')).toEqual([]);
    expect(t.of('gap')).toEqual([]);
    expect(t.delivered()).toEqual(Array.from({ length: 603 }, (_, q) => q));
    // Another batch under that seq, with nothing held to tell a restart from another publisher's
    // answer, changes nothing: the stream went on from 101 live.
    const other = probedAt100();
    other.feed(...Array.from({ length: 500 }, (_, q) => 101 + q));
    expect(other.s.replayedBatch(1, 100n, 'new100', 0)).toBe(false);
    expect(other.of('request')).toHaveLength(1);
    expect(other.s.waiting).toBe(false);
    other.feed(601);
    expect(other.delivered()).toEqual(Array.from({ length: 602 }, (_, q) => q));
    expect([...other.of('reset'), ...other.of('gap'), ...other.of('foreign')]).toEqual([]);
  });
});

describe('sequencer probing a publisher that restarted while we were not reading', () => {
  it('takes no restart from a probe answer alone; the next batch live opens a gap that tells', () => {
    const t = probedAt100();
    // The new engine published 0..104 while we were not reading, and went quiet: the probe's
    // answer has another batch under 100, with nothing live to tell it from a wrong endpoint.
    expect(t.s.replayedBatch(1, 100n, 'new100', 0)).toBe(false);
    expect(t.of('request')).toHaveLength(1);
    expect([...t.of('reset'), ...t.of('foreign')]).toEqual([]);
    // Its next batch live is past our last seq: a gap, whose answer holds that batch.
    t.feed(105);
    expect(t.of('request').at(-1)).toEqual({ k: 'request', id: 2, from: 100 });
    t.replay(2, [100, 101, 102, 103, 104], 0, false);
    t.s.replayedBatch(2, 105n, 'live105', 0);
    expect(t.of('request').at(-1)).toEqual({ k: 'request', id: 3, from: 0 });
    t.replay(3, [0, 1, 2, 3, 4], 0, false);
    expect(t.of('reset')).toEqual([{ k: 'reset', previous: 100 }]);
    expect(t.resetItems).toEqual(['replay0']);
    for (let q = 5; q <= 104; q++) t.s.replayedBatch(3, BigInt(q), `replay${q}`, 0);
    t.s.replayedBatch(3, 105n, 'live105', 0);
    expect(
      t
        .of('deliver')
        .map((d) => d.item)
        .slice(101),
    ).toEqual([...Array.from({ length: 105 }, (_, q) => `replay${q}`), 'live105']);
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 0, to: 104, recovered: 105, lost: 0 }]);
    expect(t.s.waiting).toBe(false);
    t.feed(106);
    expect(t.delivered().at(-1)).toBe(106);
    expect(t.of('reset')).toHaveLength(1);
    expect(t.of('foreign')).toEqual([]);
  });
});

describe("sequencer asking a replay endpoint that is another publisher's", () => {
  const same = (a: string, b: string): boolean => a === b;

  it('applies nothing of an answer whose last batch differs and whose copy of the held one differs', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2, 7, 8);
    // The other publisher's 2..8: another batch under 2, and under 7.
    expect(t.s.replayedBatch(1, 2n, 'other2', 0)).toBe(true);
    for (let q = 3; q <= 6; q++) t.s.replayedBatch(1, BigInt(q), `other${q}`, 0);
    expect(t.s.replayedBatch(1, 7n, 'other7', 0)).toBe(false);
    expect(t.of('foreign')).toEqual([{ k: 'foreign', seq: 7 }]);
    expect(t.of('reset')).toEqual([]);
    // What was received live is applied, what the live stream missed is lost, not recovered.
    expect(t.of('deliver').map((d) => d.item)).toEqual([0, 1, 2, 7, 8].map((q) => `live${q}`));
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 3, to: 6, recovered: 0, lost: 4 }]);
    expect(t.of('rejected')).toHaveLength(1);
    expect(t.s.waiting).toBe(false);
    t.feed(9);
    expect(t.delivered().at(-1)).toBe(9);
  });

  it("takes an answer that ends before the held batch as another publisher's", () => {
    for (const end of ['marker', 'idle', 'past the newest'] as const) {
      const t = make({ replay: true, same });
      t.feed(0, 1, 2, 9);
      t.s.replayedBatch(1, 2n, 'other2', 0);
      t.s.replayedBatch(1, 3n, 'other3', 0);
      if (end === 'marker') t.s.replayEnded(1, true, 0);
      else if (end === 'idle') t.s.tick(10_000);
      else expect(t.s.replayedBatch(1, 12n, 'other12', 0)).toBe(false);
      expect(t.of('foreign')).toEqual([{ k: 'foreign', seq: 9 }]);
      // Only a frame past the newest live seq is refused, once.
      expect(t.of('rejected')).toHaveLength(end === 'past the newest' ? 1 : 0);
      expect(t.of('reset')).toEqual([]);
      expect(t.delivered()).toEqual([0, 1, 2, 9]);
      expect(t.lost()).toBe(6);
    }
  });

  it('says so when an answer that starts past the last seq has another copy of a held batch', () => {
    const t = make({ replay: true, same });
    t.feed(0, 1, 2, 5, 6);
    // Nothing under 2 to check: 3 and 4 are gone from this answer, and its 5 is not ours.
    expect(t.s.replayedBatch(1, 5n, 'other5', 0)).toBe(false);
    expect(t.of('foreign')).toEqual([{ k: 'foreign', seq: 5 }]);
    expect(t.of('deliver').map((d) => d.item)).toEqual([0, 1, 2, 5, 6].map((q) => `live${q}`));
    expect(t.of('gap')).toEqual([{ k: 'gap', from: 3, to: 4, recovered: 0, lost: 2 }]);
    expect(t.of('reset')).toEqual([]);
  });
});
