// What a hash search box asks for: its text, unless it is too long to be any hash, which is said
// in words instead of the service's schema error (and asked for nothing).

import { MAX_SEARCH_CHARS } from '../../shared/limits';
import { formatInt } from './format';

/** The hash to search for ('' for none), and why the text was not searched when it was not. */
export function hashSearch(text: string): { hash: string; refused: string | null } {
  const hash = text.trim();
  if (hash.length <= MAX_SEARCH_CHARS) return { hash, refused: null };
  return {
    hash: '',
    refused: `A hash has at most ${MAX_SEARCH_CHARS} characters (a 64-byte digest is 128 in hex); this text has ${formatInt(hash.length)}, so it was not searched.`,
  };
}
