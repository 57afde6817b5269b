// Matching a user's hash query against canonical keys (decimal for integer hashes, hex for byte
// hashes): a prefix of the key text, and for a hex query also the exact integer it spells.

import type { HashKey } from '../../shared/events';

/** What a hash query matches: keys starting with `prefix`, and the keys in `exact`. */
export interface HashTerms {
  prefix: string;
  exact: string[];
}

/** The terms of what the user typed; null for an empty query. */
export function hashTerms(text: string | undefined): HashTerms | null {
  if (text === undefined) return null;
  let q = text.trim().toLowerCase();
  if (q === '') return null;
  const hexPrefixed = q.startsWith('0x');
  if (hexPrefixed) q = q.slice(2);
  const exact: string[] = [];
  if (/^[0-9a-f]{1,16}$/.test(q) && (hexPrefixed || /[a-f]/.test(q))) {
    exact.push(BigInt('0x' + q).toString(10));
  }
  return { prefix: q, exact };
}

/** A predicate over canonical hash keys built from what the user typed; null for an empty query. */
export function hashMatcher(text: string | undefined): ((key: HashKey) => boolean) | null {
  const terms = hashTerms(text);
  if (terms === null) return null;
  const { prefix } = terms;
  const exact = new Set(terms.exact);
  return (key) => key.startsWith(prefix) || exact.has(key);
}
