import { describe, expect, it } from 'vitest';
import { RESTART_WINDOW, SeqDedup } from '../../electron/session/seq-dedup';
import { BadLine, captureHash, intField, seqField } from '../../electron/session/record-fields';

/** Each batch's time (every line of a batch has it): a batch read again has the same. */
const at = (seq: number) => 1000 + seq;

describe('SeqDedup, the one rule for seqs seen again in a file', () => {
  it('applies each event of a batch once and each batch once, per source', () => {
    const d = new SeqDedup();
    expect(d.event('a', 10, 0, at(10))).toBe('apply');
    expect(d.event('a', 10, 1, at(10))).toBe('apply');
    expect(d.event('a', 10, 1, at(10))).toBe('duplicate');
    expect(d.event('b', 10, 0, at(10))).toBe('apply'); // another source's seq 10
    expect(d.event('a', 12, 0, at(12))).toBe('apply'); // a gap is not a duplicate
    expect(d.event('a', 10, 0, at(10))).toBe('duplicate'); // behind the highest seq, and read
    expect(d.event('a', 11, 0, at(11))).toBe('apply'); // behind it, never read: late, not a duplicate
    expect(d.event('a', 11, 0, at(11))).toBe('duplicate');
    expect(d.event('a', 12, 1, at(12))).toBe('apply');
    expect(d.event('a', 12, 0, at(12))).toBe('duplicate');
    expect(d.duplicates).toBe(4);
  });

  it('keeps the batches around one line whose seq was corrupted upwards', () => {
    // Batch 5's third line says 12: batches 6 to 11 and the rest of 5 were never read.
    const d = new SeqDedup();
    const verdicts: string[] = [];
    for (let seq = 0; seq <= 12; seq++)
      for (let idx = 0; idx < 3; idx++)
        // The corrupted line is batch 5's: its ts is batch 5's.
        verdicts.push(d.event('a', seq === 5 && idx === 1 ? 12 : seq, idx, at(seq)));
    // Only the true batch 12's event 1 meets the corrupted line's (12, 1): one duplicate.
    expect(verdicts.filter((v) => v === 'duplicate')).toHaveLength(1);
    expect(verdicts.filter((v) => v === 'apply')).toHaveLength(38);
  });

  it('reads seq 0, or a seq more than the window back, as a restart, as the sequencer does', () => {
    const d = new SeqDedup();
    for (let seq = 500 - RESTART_WINDOW; seq <= 500; seq++) d.event('a', seq, 0, at(seq));
    // The window's oldest seq is still remembered as read.
    expect(d.event('a', 500 - RESTART_WINDOW, 0, at(500 - RESTART_WINDOW))).toBe('duplicate');
    // A new run's batches come later than the old run's (its first batch after its last).
    expect(d.event('a', 500 - RESTART_WINDOW - 1, 0, 5000)).toBe('restart');
    expect(d.maxSeq('a')).toBe(500 - RESTART_WINDOW - 1);
    d.event('a', 3, 0, 5001);
    expect(d.event('a', 0, 0, 5002)).toBe('restart');
    d.reset('a');
    expect(d.event('a', 0, 0, at(0))).toBe('apply');
  });

  it('reads a seq gone back to a batch read under another ts as a restart whose start was missed', () => {
    const d = new SeqDedup();
    for (let seq = 0; seq <= 9; seq++) d.event('a', seq, 0, at(seq));
    // A new engine, its seqs 0 and 1 never captured: its batch 2 is not the old batch 2.
    expect(d.event('a', 2, 0, 2000)).toBe('restart');
    expect(d.event('a', 2, 1, 2000)).toBe('apply');
    expect(d.event('a', 3, 0, 2001)).toBe('apply');
    // The new run's batches are told apart as any run's.
    expect(d.event('a', 3, 0, 2001)).toBe('duplicate');
    // Back to a batch read under the same ts: the very batch again, a duplicate as before.
    const e = new SeqDedup();
    for (let seq = 0; seq <= 9; seq++) e.event('a', seq, 0, at(seq));
    expect(e.event('a', 2, 0, at(2))).toBe('duplicate');
    expect(e.duplicates).toBe(1);
  });

  it('reads a batch read again far back, under its very ts, as a duplicate, not a restart', () => {
    const d = new SeqDedup();
    for (let seq = 0; seq <= 5000; seq++) d.event('a', seq, 0, at(seq));
    // A copy of batch 152's line, far behind the window: that batch again.
    expect(d.event('a', 152, 0, at(152))).toBe('duplicate');
    expect(d.event('a', 0, 0, at(0))).toBe('duplicate');
    expect(d.maxSeq('a')).toBe(5000);
    expect(d.event('a', 5001, 0, at(5001))).toBe('apply');
    // Another ts there is another batch: a run whose start was missed, as before.
    expect(d.event('a', 152, 0, 9999)).toBe('restart');
    // A new run forgets the old one's batches: its own seq 152 again is its own.
    expect(d.event('a', 153, 0, 10_000)).toBe('apply');
    expect(d.event('a', 152, 0, 9999)).toBe('duplicate');
    // A line of the run before (timed before this run began) starts no run: a stale copy.
    expect(d.event('a', 50, 0, at(50))).toBe('duplicate');
    expect(d.event('a', 0, 0, at(0))).toBe('duplicate');
    expect(d.maxSeq('a')).toBe(153);
  });

  it('reads a line moved far earlier as a batch out of place, not a restart: the run resumes behind it', () => {
    // Batches 0..2000 of three events; batch 1500's event 1 moved to just after batch 200's event 0.
    const d = new SeqDedup();
    const verdicts: string[] = [];
    for (let seq = 0; seq <= 2000; seq++) {
      for (let idx = 0; idx < 3; idx++) {
        if (seq === 1500 && idx === 1) continue;
        verdicts.push(d.event('a', seq, idx, at(seq)));
        if (seq === 200 && idx === 0) verdicts.push(d.event('a', 1500, 1, at(1500)));
      }
    }
    // The run goes on where it was (no restart); each event is applied once, batch 1500's all three.
    expect(verdicts.filter((v) => v === 'restart')).toEqual([]);
    expect(verdicts.filter((v) => v === 'duplicate')).toEqual([]);
    expect(verdicts.filter((v) => v === 'resume')).toHaveLength(1);
    expect(d.maxSeq('a')).toBe(2000);
    // Its events are still told from their copies.
    expect(d.event('a', 1999, 2, at(1999))).toBe('duplicate');
  });

  it('reads a line moved far later as a batch out of order, skipped as one, not a restart', () => {
    const d = new SeqDedup();
    const verdicts: string[] = [];
    for (let seq = 0; seq <= 2000; seq++) {
      if (seq === 300) continue;
      verdicts.push(d.event('a', seq, 0, at(seq)));
      if (seq === 1700) verdicts.push(d.event('a', 300, 0, at(300)));
    }
    expect(verdicts.filter((v) => v !== 'apply')).toEqual(['duplicate']);
    expect(d.maxSeq('a')).toBe(2000);
    // A run that goes on far behind (its highest seq was the line out of place) resumes at its
    // second batch rather than being skipped up to there.
    const e = new SeqDedup();
    for (let seq = 0; seq <= 100; seq++) e.event('a', seq, 0, at(seq));
    expect(e.event('a', 5000, 0, at(5000))).toBe('apply');
    expect(e.event('a', 5001, 0, at(5001))).toBe('apply');
    expect(e.event('a', 101, 0, at(101))).toBe('duplicate');
    expect(e.event('a', 102, 0, at(102))).toBe('resume');
    expect(e.event('a', 103, 0, at(103))).toBe('apply');
    // A restart is still one: back to 0, or far back timed after every batch read.
    expect(e.event('a', 0, 0, at(9000))).toBe('restart');
    expect(e.event('a', 900, 0, at(9100))).toBe('apply');
    expect(e.event('a', 901, 0, at(9101))).toBe('apply');
    expect(e.event('a', 10, 0, at(9200))).toBe('restart');
  });

  it('keeps batches by seq within a bound its seqs cannot blow up', () => {
    // Seqs a million apart: each a gap, none growing the memory past the lines read.
    const d = new SeqDedup();
    for (let i = 0; i < 2000; i++) expect(d.event('a', i * 1_000_003, 0, at(i))).toBe('apply');
    // The newest of them are still known, behind the window too.
    expect(d.event('a', 1990 * 1_000_003, 0, at(1990))).toBe('duplicate');
  });

  it('cannot tell a repeated line of a batch without indexes, so applies it', () => {
    const d = new SeqDedup();
    expect(d.event('a', 1, null, at(1))).toBe('apply');
    expect(d.event('a', 1, null, at(1))).toBe('apply');
    expect(d.event('a', 2, null, at(2))).toBe('apply');
    expect(d.event('a', 1, null, at(1))).toBe('duplicate');
    // A batch never read is one to apply, indexes or not.
    expect(d.event('a', 4, null, at(4))).toBe('apply');
    expect(d.event('a', 3, null, at(3))).toBe('apply');
    expect(d.event('a', 3, null, at(3))).toBe('apply');
    expect(d.event('a', 4, null, at(4))).toBe('duplicate');
  });

  it('closes the open batch at a line of another seq, a duplicate too', () => {
    // A capture (lines without indexes) appended to itself: the copy's last batch was the open
    // one, and its lines were applied again.
    const d = new SeqDedup();
    const lines: [number, number][] = [];
    for (let seq = 0; seq <= 2; seq++) for (let i = 0; i < 2; i++) lines.push([seq, at(seq)]);
    const verdicts = [...lines, ...lines].map(([seq, ts]) => d.event('a', seq, null, ts));
    expect(verdicts.slice(0, 6).every((v) => v === 'apply')).toBe(true);
    expect(verdicts.slice(6)).toEqual(Array(6).fill('duplicate'));
    expect(d.duplicates).toBe(6);
  });
});

describe('record field checks', () => {
  it('keeps every seq below 2^53 exact and refuses the rest by name', () => {
    expect(seqField(9007199254740991)).toBe(9007199254740991);
    expect(seqField('9007199254740991')).toBe(9007199254740991);
    expect(() => seqField(9007199254740992)).toThrow(/beyond 2\^53/);
    expect(() => seqField('9'.repeat(5000))).toThrow(/seq of 5000 digits is beyond 2\^53/);
    expect(() => seqField(-1)).toThrow(BadLine);
    expect(() => seqField(1.5)).toThrow(/not a whole number/);
  });

  it('bounds integers without losing digits, for numbers and quoted long literals', () => {
    expect(intField(undefined, 'x', 0, 10)).toBeNull();
    expect(intField(10, 'x', 0, 10)).toBe(10);
    expect(() => intField(11, 'x', 0, 10)).toThrow(
      'x 11 is out of range (a whole number from 0 to 10)',
    );
    expect(() => intField(1e308, 'x', 0, 10)).toThrow(/x 1e\+308 is out of range/);
    expect(() => intField(Infinity, 'x', 0, 10)).toThrow(BadLine);
    expect(() => intField('5', 'x', 0, 4)).toThrow(BadLine);
  });

  it('reads capture hashes as the engine logs them, and nothing longer than a hash', () => {
    expect(captureHash(7, 'h')).toBe('7');
    expect(captureHash('18446744073709551615', 'h')).toBe('18446744073709551615');
    expect(captureHash('-9223372036854775808', 'h')).toBe('-9223372036854775808');
    expect(captureHash('0xABCDEF', 'h')).toBe('abcdef');
    // A digest whose hex is all digits, as capture quotes it when it does not read as a u64.
    expect(captureHash('010101', 'h')).toBe('010101');
    expect(() => captureHash('0101010', 'h')).toThrow(
      /not an integer or a hex string of whole bytes/,
    );
    expect(() => captureHash('-9223372036854775809', 'h')).toThrow(/does not fit 64 bits/);
    expect(() => captureHash('ab'.repeat(200), 'h')).toThrow(/longer than any block hash/);
    expect(() => captureHash(1.5, 'h')).toThrow(/not an integer or a hex string/);
    // Not whole bytes: no digest is spelled so.
    expect(() => captureHash('ABC', 'h')).toThrow(/not an integer or a hex string of whole bytes/);
    expect(() => captureHash('0x0ab', 'h')).toThrow(/of whole bytes/);
  });
});
