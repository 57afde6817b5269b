// A CLI entry with only `kvscope sim`, bundled by the CLI test (so it does not depend on the
// other subcommands being finished).
import { Command } from 'commander';
import { registerSim } from '../../electron/cli/sim-command';

const program = new Command('kvscope');
registerSim(program);
program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`kvscope: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
