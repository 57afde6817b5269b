import type { Command } from 'commander';

/** Placeholder until the desktop command lands. */
export function registerDesktop(program: Command): void {
  program.command('desktop').description('(not yet built)');
}
