// Option values shared by the commands that serve HTTP (serve, collect), checked once.

/** A --token value: long enough not to be guessed. */
export function parseToken(value: string): string {
  if (!/^[\w-]{16,}$/.test(value))
    throw new Error('--token: at least 16 letters, digits, - or _ (guessable tokens are no door)');
  return value;
}

/** A parser for a port option named `flag` (0 picks a free port). */
export function portOption(flag: string): (value: string) => number {
  return (value) => {
    const port = Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`${flag} ${value}: not a port (0 to 65535)`);
    return port;
  };
}
