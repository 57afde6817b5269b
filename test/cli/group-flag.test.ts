// --group on the screens' commands: serve and desktop refuse a group that is not a number, and
// desktop hands the one given to the Electron process (which passes it to its service).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  encodeLaunchOptions,
  LAUNCH_ENV,
  readLaunchOptions,
} from '../../electron/cli/launch-options';
import { ensureBuilt, runCli } from '../support/e2e-harness';

beforeAll(() => ensureBuilt(), 180_000);

describe('--group of serve and desktop', () => {
  // Refused while the options are read: nothing is started, no data folder touched.
  it.each([['serve'], ['desktop']])(
    '%s refuses a group that is not a whole number',
    async (cmd) => {
      const run = runCli([cmd, '--port', '0', '--group', 'full']);
      expect(await run.exited).not.toBe(0);
      expect(run.stderr()).toContain('--group must be a whole number from 0 to 65536, got "full"');
    },
  );

  it('reaches the Electron process in its launch options, and only a group in range does', () => {
    const env = (group: number | undefined) => ({
      [LAUNCH_ENV]: encodeLaunchOptions({
        endpoints: [],
        demo: true,
        ...(group === undefined ? {} : { group }),
      }),
    });
    expect(readLaunchOptions(env(1)).group).toBe(1);
    expect(readLaunchOptions(env(undefined)).group).toBeUndefined();
    // Written by hand (the CLI refuses it): launch options that cannot be read are the defaults.
    expect(readLaunchOptions(env(-1))).toEqual({ endpoints: [], demo: false });
  });
});
