import { describe, expect, it } from 'vitest';
import {
  REPLAY_END_SEQ,
  encodeSeq,
  parseMessage,
  readSeq,
  topicText,
} from '../../electron/wire/message';

const topic = Buffer.from('kv-events');
const payload = Uint8Array.of(0x92, 0x00, 0x90);

describe('parseMessage', () => {
  it('splits [topic, seq, payload]', () => {
    const r = parseMessage([topic, encodeSeq(41n), payload]);
    expect(r).toEqual({ ok: true, topicFrame: topic, seq: 41n, payload });
    expect(r.ok && topicText(r.topicFrame)).toBe('kv-events');
  });

  it('refuses a wrong frame count and says what arrived', () => {
    const r = parseMessage([encodeSeq(1n), payload]);
    expect(r).toEqual({
      ok: false,
      bytes: 11,
      error: 'FrameError: expected 3 frames [topic, seq, payload], got 2',
    });
    expect(parseMessage([topic, encodeSeq(1n), payload, payload]).ok).toBe(false);
  });

  it('refuses a seq frame that is not exactly 8 bytes', () => {
    const r = parseMessage([topic, Uint8Array.of(0, 0, 0, 1), payload]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain('4 bytes, expected 8');
      expect(r.bytes).toBe(topic.length + 4 + payload.length);
    }
  });

  it('accepts the empty topic of a replay answer', () => {
    const r = parseMessage([new Uint8Array(0), encodeSeq(REPLAY_END_SEQ), new Uint8Array(0)]);
    expect(r.ok && topicText(r.topicFrame) === '' && r.seq === REPLAY_END_SEQ).toBe(true);
  });
});

describe('seq frames', () => {
  it('round-trips 0, 2^53+1 and 2^64-1 exactly, big-endian', () => {
    for (const seq of [0n, 1n, 2n ** 53n + 1n, 2n ** 64n - 1n])
      expect(readSeq(encodeSeq(seq))).toBe(seq);
    expect([...encodeSeq(258n)]).toEqual([0, 0, 0, 0, 0, 0, 1, 2]);
  });

  it('encodes -1 as the replay end marker (eight 0xFF bytes)', () => {
    expect([...encodeSeq(-1n)]).toEqual(new Array(8).fill(0xff));
    expect(readSeq(encodeSeq(-1n))).toBe(REPLAY_END_SEQ);
  });

  it('reads a seq from a view into a larger buffer', () => {
    const big = Buffer.concat([Buffer.of(9, 9, 9), encodeSeq(7n)]);
    expect(readSeq(big.subarray(3))).toBe(7n);
    expect(readSeq(big)).toBeNull();
  });
});
