// The gap lines `kvscope capture` writes on stderr, read back by the tests that count them.

/** One "gap: seq A..B (n missing): replay recovered R, lost L" line. */
export interface GapLine {
  from: number;
  to: number;
  recovered: number;
  lost: number;
}

/** Every gap line of a capture's stderr, in order. */
export function gapLines(stderr: string): GapLine[] {
  const re = /gap: seq (\d+)\.\.(\d+) \(\d+ missing\): replay recovered (\d+), lost (\d+)/g;
  return [...stderr.matchAll(re)].map((m) => ({
    from: Number(m[1]),
    to: Number(m[2]),
    recovered: Number(m[3]),
    lost: Number(m[4]),
  }));
}
