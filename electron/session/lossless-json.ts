// JSON.parse turns 18446744073709551615 into 18446744073709552000. Before parsing, this scanner
// quotes every bare integer literal too long to be exact as a double (outside strings), so
// 64-bit hashes arrive as exact decimal strings. Floats and short integers are left alone.

const SAFE_DIGITS = 15;

/** Quote integer literals of more than 15 digits outside JSON strings. */
export function quoteBigInts(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, honouring escapes.
      i += 1;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i += 1;
      }
      i += 1;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i += 1;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (
          (d >= 0x30 && d <= 0x39) ||
          d === 0x2e ||
          d === 0x65 ||
          d === 0x45 ||
          d === 0x2b ||
          d === 0x2d
        )
          i += 1;
        else break;
      }
      const tok = text.slice(start, i);
      if (/^-?\d+$/.test(tok) && tok.replace('-', '').length > SAFE_DIGITS) {
        out += text.slice(last, start) + '"' + tok + '"';
        last = i;
      }
      continue;
    }
    i += 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** JSON.parse that keeps long integers exact (as decimal strings). */
export function parseLossless(text: string): unknown {
  return JSON.parse(quoteBigInts(text));
}
