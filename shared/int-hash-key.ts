// Which canonical hash keys are integer hashes: the one test the wire (which makes the keys) and
// the model's hash search (which reads them) share, so a search never calls a key an integer the
// decoder would not have written as one.

const U64_MAX_DEC = '18446744073709551615';

/** True when the key is the decimal form of an unsigned 64-bit integer (no sign, no leading zero). */
export function isIntHashKey(key: string): boolean {
  // /^(0|[1-9][0-9]{0,19})$/ by hand: it runs once per hash printed, and a loop is cheaper.
  const n = key.length;
  if (n === 0 || n > 20) return false;
  const first = key.charCodeAt(0);
  if (first === 0x30) return n === 1;
  if (first < 0x31 || first > 0x39) return false;
  for (let i = 1; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return n < 20 || key <= U64_MAX_DEC;
}
