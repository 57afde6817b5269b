// The two ways a payload can be wrong, and type names for messages that never quote a value.

/** The bytes are not well-formed msgpack (truncated, reserved byte, impossible length). */
export class MsgpackError extends Error {
  override name = 'MsgpackError';
}

/** Well-formed msgpack that does not have the shape of a KV event batch or event. */
export class SchemaError extends Error {
  override name = 'SchemaError';
}

/** What a msgpack type byte is, for error messages. */
export function typeName(b: number): string {
  if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3)) return 'an int';
  if (b <= 0x8f || b === 0xde || b === 0xdf) return 'a map';
  if (b <= 0x9f || b === 0xdc || b === 0xdd) return 'an array';
  if (b <= 0xbf || (b >= 0xd9 && b <= 0xdb)) return 'a string';
  if (b === 0xc0) return 'nil';
  if (b === 0xc2 || b === 0xc3) return 'a bool';
  if (b >= 0xc4 && b <= 0xc6) return 'bytes';
  if (b === 0xca || b === 0xcb) return 'a float';
  if (b === 0xc1) return 'a reserved byte';
  return 'an ext';
}
