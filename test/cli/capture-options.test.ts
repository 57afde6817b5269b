// capture's own options through commander's parse: absurd values are refused before anything runs.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCapture } from '../../electron/cli/capture-command';

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

  it('refuses a negative or fractional --max', () => {
    expect(() => parse('--max', '-1')).toThrow('--max must be a whole number >= 0, got "-1"');
    expect(() => parse('--max', '1.5')).toThrow('--max must be a whole number >= 0, got "1.5"');
  });
});
