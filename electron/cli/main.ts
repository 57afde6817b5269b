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

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`kvscope: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
