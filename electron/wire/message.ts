// One ZeroMQ message of a KV event publisher: [topic, seq (u64 big-endian), msgpack payload].

/** The seq of the replay end marker (-1 as a signed 64-bit integer: eight 0xFF bytes). */
export const REPLAY_END_SEQ = 0xffffffffffffffffn;

export type ParsedMessage =
  | { ok: true; topicFrame: Uint8Array; seq: bigint; payload: Uint8Array }
  | { ok: false; bytes: number; error: string };

const topicDecoder = new TextDecoder('utf-8');

/** A topic frame as text (decoded only where it is read: most messages never need it). */
export function topicText(frame: Uint8Array): string {
  return topicDecoder.decode(frame);
}

/** The 8-byte big-endian frame of a seq; negative values wrap (-1n gives the replay end marker). */
export function encodeSeq(seq: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt.asUintN(64, seq));
  return out;
}

// One view for every seq read: a DataView per message was a measurable part of parsing one.
const seqView = new DataView(new ArrayBuffer(8));
const seqBytes = new Uint8Array(seqView.buffer);

/** The seq carried by an 8-byte big-endian frame, or null when the frame is not 8 bytes. */
export function readSeq(frame: Uint8Array): bigint | null {
  if (frame.byteLength !== 8) return null;
  for (let i = 0; i < 8; i++) seqBytes[i] = frame[i] as number;
  return seqView.getBigUint64(0, false);
}

/** Splits a received message into topic, seq and payload, or says why it is not one. */
export function parseMessage(frames: readonly Uint8Array[]): ParsedMessage {
  let bytes = 0;
  for (const frame of frames) bytes += frame.byteLength;
  if (frames.length !== 3) {
    return {
      ok: false,
      bytes,
      error: `FrameError: expected 3 frames [topic, seq, payload], got ${frames.length}`,
    };
  }
  const [topicFrame, seqFrame, payload] = frames as readonly [Uint8Array, Uint8Array, Uint8Array];
  const seq = readSeq(seqFrame);
  if (seq === null) {
    return {
      ok: false,
      bytes,
      error: `FrameError: the seq frame has ${seqFrame.byteLength} bytes, expected 8 (u64 big-endian)`,
    };
  }
  return { ok: true, topicFrame, seq, payload };
}
