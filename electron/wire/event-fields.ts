// The event fields this decoder knows, by id: the wire names, the positional layouts, and a
// bitmask per batch of which ones were seen (cheap to collect, cheap to merge).

export const F_TYPE = 0;
export const F_BLOCK_HASHES = 1;
export const F_PARENT = 2;
export const F_TOKEN_IDS = 3;
export const F_BLOCK_SIZE = 4;
export const F_LORA_ID = 5;
export const F_MEDIUM = 6;
export const F_LORA_NAME = 7;
export const F_EXTRA_KEYS = 8;
export const F_GROUP_IDX = 9;
export const F_SPEC_KIND = 10;
export const F_SPEC_WINDOW = 11;
export const F_METADATA = 12;
export const F_CACHE_SALT = 13;
export const F_SESSION_ID = 14;
export const F_LOCALITY = 15;
export const F_OWNERSHIP = 16;

/** Wire names by field id. */
export const KNOWN_EVENT_FIELDS: readonly string[] = [
  'type',
  'block_hashes',
  'parent_block_hash',
  'token_ids',
  'block_size',
  'lora_id',
  'medium',
  'lora_name',
  'extra_keys',
  'group_idx',
  'kv_cache_spec_kind',
  'kv_cache_spec_sliding_window',
  'metadata',
  'cache_salt',
  'session_id',
  'locality',
  'ownership',
];

/** Positional layouts: field id at each array position (position 0 is the type tag). */
export const STORED_POSITIONS: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
export const REMOVED_POSITIONS: readonly number[] = [F_TYPE, F_BLOCK_HASHES, F_MEDIUM, F_GROUP_IDX];
export const CLEARED_POSITIONS: readonly number[] = [F_TYPE, F_MEDIUM];

/** Event type ids. */
export const T_STORED = 0;
export const T_REMOVED = 1;
export const T_CLEARED = 2;

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Type tags as bytes, by type id. */
export const TYPE_TAGS: readonly Uint8Array[] = [
  ascii('BlockStored'),
  ascii('BlockRemoved'),
  ascii('AllBlocksCleared'),
];

// Known field names by (length, first byte): no two share both, so a map key is matched by one
// table look-up and one comparison, without decoding it (a map event has a dozen keys).
const FIELD_NAMES: readonly Uint8Array[] = KNOWN_EVENT_FIELDS.map(ascii);
const MAX_FIELD_LEN = Math.max(...KNOWN_EVENT_FIELDS.map((n) => n.length));
const FIELD_BY_LEN_FIRST: Int8Array = (() => {
  const table = new Int8Array((MAX_FIELD_LEN + 1) * 128).fill(-1);
  KNOWN_EVENT_FIELDS.forEach((name, id) => {
    const slot = name.length * 128 + name.charCodeAt(0);
    if (table[slot] !== -1) throw new Error(`event-fields: ${name} shares length and first byte`);
    table[slot] = id;
  });
  return table;
})();

/** The id of the known field whose name is bytes[at, at + len), or -1. */
export function fieldIdAt(bytes: Uint8Array, at: number, len: number): number {
  if (len === 0 || len > MAX_FIELD_LEN) return -1;
  const first = bytes[at] as number;
  if (first >= 128) return -1;
  const id = FIELD_BY_LEN_FIRST[len * 128 + first] as number;
  if (id < 0) return -1;
  const name = FIELD_NAMES[id] as Uint8Array;
  for (let i = 1; i < len; i++) if (bytes[at + i] !== name[i]) return -1;
  return id;
}

/** Wire names of the fields whose bits are set in `mask`, sorted. */
export function fieldNamesOf(mask: number): string[] {
  const out: string[] = [];
  KNOWN_EVENT_FIELDS.forEach((name, id) => {
    if (mask & (1 << id)) out.push(name);
  });
  return out.sort();
}
