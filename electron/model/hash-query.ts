// Matching a user's hash query against canonical keys (decimal for integer hashes, hex for byte
// hashes): a prefix of the key text, and for a hex query also the exact integer it spells.

import type { HashKey } from '../../shared/events';

/** A predicate over canonical hash keys built from what the user typed; null for an empty query. */
export function hashMatcher(text: string | undefined): ((key: HashKey) => boolean) | null {
  if (text === undefined) return null;
  let q = text.trim().toLowerCase();
  if (q === '') return null;
  const hexPrefixed = q.startsWith('0x');
  if (hexPrefixed) q = q.slice(2);
  const exact = new Set<string>();
  if (/^[0-9a-f]{1,16}$/.test(q) && (hexPrefixed || /[a-f]/.test(q))) {
    exact.add(BigInt('0x' + q).toString(10));
  }
  const prefix = q;
  return (key) => key.startsWith(prefix) || exact.has(key);
}
