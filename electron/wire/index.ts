// The wire decoder's public surface: frames → (topic, seq, payload) → redacted events.

export { REPLAY_END_SEQ, encodeSeq, parseMessage, readSeq } from './message';
export type { ParsedMessage } from './message';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  ENC_ARRAY,
  ENC_MAP,
  HASH_BYTES,
  HASH_INT,
  HASH_NEGATIVE,
  decodeBatch,
  describeShape,
} from './decode-batch';
export type {
  BatchShape,
  DecodeLimits,
  DecodeResult,
  DecodedEvent,
  EventError,
  RankField,
} from './decode-batch';
export { FingerprintBuilder } from './fingerprint';
export * from './hash-key';
