import type { Command } from 'commander';

/** Placeholder until the capture command lands. */
export function registerCapture(program: Command): void {
  program.command('capture').description('(not yet built)');
}
