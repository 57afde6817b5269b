import type { Command } from 'commander';

/** Placeholder until the serve command lands. */
export function registerServe(program: Command): void {
  program.command('serve').description('(not yet built)');
}
