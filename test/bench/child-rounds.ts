// Rounds of a bench's variants, each in a fresh child of this bench bundle, the variants
// interleaved. Run in one process, variants share the JIT's type feedback and the heap's state,
// and which way the JIT settled moved a round by up to 3x (the ring bench's decode + line alone
// read 7.5 µs in one run, 3.1 in the next; the analysis bench's analysis 1,198 ms and 776).

import { spawn } from 'node:child_process';

/** The argument that makes the bench bundle run one round (see runRoundChild). */
export const ROUND_CHILD_FLAG = '--round-child';

/**
 * A bench's round: takes a variant's index and the bench's arguments, returns (or resolves with)
 * what it measured, as JSON.
 */
export type RoundRunner = (variant: number, args: string[]) => unknown;

/** Runs one round of `bench`'s variant in this process (the child) and prints its result. */
export async function runRoundChild(
  runners: Record<string, RoundRunner>,
  bench: string,
  variant: number,
  args: string[],
): Promise<void> {
  const run = runners[bench];
  if (run === undefined) throw new Error(`no rounds of ${bench}`);
  process.stdout.write(`${JSON.stringify(await run(variant, args))}\n`);
}

/**
 * `rounds` rounds of each of `variants` variants of `bench`, each in a child given `args`,
 * interleaved (round r starts at variant r): per variant, its rounds' results in order.
 */
export async function childRounds<T>(
  bench: string,
  variants: number,
  rounds: number,
  args: string[] = [],
): Promise<T[][]> {
  const results: T[][] = Array.from({ length: variants }, () => []);
  for (let r = 0; r < rounds; r += 1) {
    for (let k = 0; k < variants; k += 1) {
      const index = (r + k) % variants;
      results[index]?.push(await inChild<T>(bench, index, args));
    }
  }
  return results;
}

async function inChild<T>(bench: string, variant: number, rest: string[]): Promise<T> {
  const self = process.argv[1] as string;
  const args = [...process.execArgv, self, ROUND_CHILD_FLAG, bench, `${variant}`, ...rest];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`${bench}: variant ${variant} exited with ${code}`);
  return JSON.parse(out) as T;
}
