// Notices said short: the problems panel lists a file's problems, so the notice only points to it.

const OPENED_WITH_PROBLEMS = /^(opened .+?) with (\d+) problem\(?s?\)?: [\s\S]*$/i;

/** "opened X with 2 problem(s): <first problem>" → "opened X with 2 problems: see below". */
export function shortNotice(text: string): string {
  const m = OPENED_WITH_PROBLEMS.exec(text);
  if (!m) return text;
  const n = Number(m[2]);
  return `${m[1]} with ${n} problem${n === 1 ? '' : 's'}: see below`;
}
