import type { Command } from 'commander';

/** Placeholder until the sim command lands. */
export function registerSim(program: Command): void {
  program.command('sim').description('(not yet built)');
}
