// Option values shared by the commands, checked once.

import { Option } from 'commander';
import { MAX_GROUP_IDX } from '../../shared/event-bounds';

/** A --token value: long enough not to be guessed. */
export function parseToken(value: string): string {
  if (!/^[\w-]{16,}$/.test(value))
    throw new Error('--token: at least 16 letters, digits, - or _ (guessable tokens are no door)');
  return value;
}

/**
 * A whole number written as decimal digits, in [min, max]; null otherwise. Number() alone took ""
 * as 0, "0x10" as 16 and "1e3" as 1000, and any length of digits as a rounded double.
 */
export function wholeNumber(value: string, min: number, max: number): number | null {
  if (!/^\d{1,16}$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

/** A parser for a whole-number option named `flag`, from min to max (`note`: what 0 means, say). */
export function wholeNumberOption(
  flag: string,
  min: number,
  max: number,
  note = '',
): (value: string) => number {
  return (value) => {
    const n = wholeNumber(value, min, max);
    if (n === null)
      throw new Error(
        `${flag} must be a whole number from ${min} to ${max}${note}, got "${value}"`,
      );
    return n;
  };
}

/** A parser for a port option named `flag` (0 picks a free port). */
export function portOption(flag: string): (value: string) => number {
  return (value) => {
    const port = wholeNumber(value, 0, 65535);
    if (port === null) throw new Error(`${flag} ${value}: not a port (0 to 65535)`);
    return port;
  };
}

/**
 * --group: one KV cache group of a hybrid model analysed alone (CacheAnalysisOptions.group).
 * `effect`: what the group changes in this command's output.
 */
export function kvCacheGroupOption(effect = ''): Option {
  return new Option(
    '--group <n>',
    `analyse one KV cache group alone (vLLM's group_idx; a hybrid model publishes each block once per group)${effect}`,
  ).argParser(wholeNumberOption('--group', 0, MAX_GROUP_IDX));
}
