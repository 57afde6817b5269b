// capture's own options through commander's parse: absurd values are refused before anything runs.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { checkCaptureEndpoints, registerCapture } from '../../electron/cli/capture-command';
import { wholeNumber } from '../../electron/cli/option-values';

const parse = (...args: string[]): void => {
  const program = new Command().exitOverride();
  registerCapture(program);
  program.commands.forEach((c) => c.exitOverride());
  program.parse(['capture', '--endpoint', 'tcp://127.0.0.1:5557', ...args], { from: 'user' });
};

describe('kvscope capture options', () => {
  it.each(['0', '-5', 'abc', '1e9', 'Infinity'])('refuses --stall-after %s', (v) => {
    expect(() => parse('--stall-after', v)).toThrow(
      `--stall-after must be a number of seconds above 0 and at most 86400, got "${v}"`,
    );
  });

  // Number() took "" as 0 (run for ever), "0x10" as 16 and "1e3" as 1000, and rounded long ones.
  it.each(['-1', '1.5', '', ' 7', '0x10', '1e3', '99999999999999999999'])(
    'refuses --max %j: only decimal digits of a whole number',
    (v) => {
      expect(() => parse('--max', v)).toThrow(
        `--max must be a whole number from 0 to 9007199254740991 (0: until Ctrl-C), got "${v}"`,
      );
    },
  );

  it('tells the same range for every --dp refused, negative or zero', () => {
    for (const v of ['-2', '0', '257', 'two'])
      expect(() => parse('--dp', v)).toThrow(
        `--dp must be a whole number from 1 to 256, got "${v}"`,
      );
  });

  it('reads a whole number of decimal digits, within its range', () => {
    expect(wholeNumber('16', 0, 100)).toBe(16);
    expect(wholeNumber('0', 0, 100)).toBe(0);
    expect(wholeNumber('101', 0, 100)).toBeNull();
    expect(wholeNumber('0x10', 0, 100)).toBeNull();
  });

  // collect and serve refused these; capture took them and subscribed a SUB to a ROUTER.
  it("refuses a replay port that is the events port, or meets the ranks' events ports", () => {
    expect(() =>
      checkCaptureEndpoints({
        endpoint: 'tcp://127.0.0.1:5557',
        replayEndpoint: 'tcp://127.0.0.1:5557',
      }),
    ).toThrow('--replay-endpoint: the replay port 5557 is the events port');
    expect(() =>
      checkCaptureEndpoints({
        endpoint: 'tcp://127.0.0.1:5557',
        replayEndpoint: 'tcp://127.0.0.1:5558',
        dp: 2,
      }),
    ).toThrow('give the replay a port from 5559 on');
    expect(() =>
      checkCaptureEndpoints({
        endpoint: 'tcp://127.0.0.1:5557',
        replayEndpoint: 'tcp://127.0.0.1:5559',
        dp: 2,
      }),
    ).not.toThrow();
    expect(() =>
      checkCaptureEndpoints({
        endpoint: 'tcp://127.0.0.1:5557',
        replayEndpoint: 'tcp://127.0.0.1:5558',
      }),
    ).not.toThrow();
  });
});
