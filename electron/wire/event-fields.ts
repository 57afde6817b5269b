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

/** Known field names as bytes, grouped by length, for matching map keys without decoding them. */
export const FIELDS_BY_LENGTH: readonly (readonly [Uint8Array, number][])[] = (() => {
  const table: [Uint8Array, number][][] = [];
  KNOWN_EVENT_FIELDS.forEach((name, id) => {
    (table[name.length] ??= []).push([ascii(name), id]);
  });
  for (let i = 0; i < table.length; i++) table[i] ??= [];
  return table;
})();

/** Wire names of the fields whose bits are set in `mask`, sorted. */
export function fieldNamesOf(mask: number): string[] {
  const out: string[] = [];
  KNOWN_EVENT_FIELDS.forEach((name, id) => {
    if (mask & (1 << id)) out.push(name);
  });
  return out.sort();
}
