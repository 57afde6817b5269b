// A file's problem list is bounded: after its first entries, one closing line says how many more
// lines had problems. It is written and read here only, so a count shown on screen is the number
// of problems, not of entries ("22 problems" for 1,237 before).

const MORE = /^… and (\d+) more lines with problems$/;

/** The closing line of a list that left n line problems out. */
export function moreProblemsLine(n: number): string {
  return `… and ${n} more lines with problems`;
}

/** How many problems a list stands for: its entries, a closing moreProblemsLine counted as its n. */
export function problemCount(list: readonly string[]): number {
  const more = MORE.exec(list.at(-1) ?? '');
  return more === null ? list.length : list.length - 1 + Number(more[1]);
}
