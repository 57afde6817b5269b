// `kvscope`: the command-line entry. Each subcommand lives in its own file.
import { Command } from 'commander';
import { registerAnalyze } from './analyze-command';
import { registerCapture } from './capture-command';
import { registerSim } from './sim-command';
import { registerServe } from './serve-command';
import { registerDesktop } from './desktop-command';
import { registerCollect } from './collect-command';
import { APP_VERSION } from '../app-version';

const program = new Command('kvscope')
  .description("See what an inference engine's prefix (KV) cache is doing.")
  .version(APP_VERSION);

registerCapture(program);
registerAnalyze(program);
registerSim(program);
registerServe(program);
registerDesktop(program);
registerCollect(program);

// A command left waiting on what nothing will settle ends the process once nothing else runs:
// with no word and exit code 0, which a script takes for success (analyze did so on a corrupt
// gzip). Say so and fail instead.
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  settled = true;
  process.stderr.write(
    'kvscope: stopped before it finished, with nothing left to wait for (a bug)\n',
  );
  process.exitCode = 70;
});

program
  .parseAsync(process.argv)
  .then(() => {
    settled = true;
  })
  .catch((err: unknown) => {
    process.stderr.write(`kvscope: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
