// Limits said once, for every layer that enforces or explains them.

/** The largest file a renderer may hand over (an upload, an opened session's bytes). */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
export const MAX_UPLOAD_BYTES_TEXT = '2 GiB';

/** The longest text a hash search takes (a 64-byte digest in hex is 128 characters). */
export const MAX_SEARCH_CHARS = 200;

/** A hash search answers the first this many matching blocks (in the order they became known). */
export const MAX_HASH_MATCHES = 50;
/** Chains listed per matching block (chainCount has them all). */
export const MAX_MATCH_CHAINS = 20;
