// The README's command table against the commands themselves: every command `kvscope --help`
// lists has a row, and each row names exactly the flags its `--help` shows, a value after each
// flag that takes one (and none after a switch), the defaults it writes out as they are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerAnalyze } from '../../electron/cli/analyze-command';
import { registerCapture } from '../../electron/cli/capture-command';
import { registerCollect } from '../../electron/cli/collect-command';
import { registerDesktop } from '../../electron/cli/desktop-command';
import { registerServe } from '../../electron/cli/serve-command';
import { registerSim } from '../../electron/cli/sim-command';
import { ROOT } from '../support/built-app';

interface RowFlag {
  flag: string;
  /** The word written after the flag (`URL`, `8080`), or null for a switch. */
  value: string | null;
}

interface Row {
  command: string;
  flags: RowFlag[];
  /** Words that follow no flag: the positional arguments (`FILE`). */
  args: string[];
}

/** The command cells of the table under "## The command line", parsed into flags. */
function readmeRows(): Row[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## The command line\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `kvscope ([^`]+)` \|/gm)].map((m) => {
    // `[`, `]` and `...` only group and repeat; `a\|b` is one value with its choices.
    const words = (m[1] ?? '')
      .replace(/\\\|/g, '|')
      .replace(/\.\.\.|[[\]]/g, ' ')
      .split(/\s+/)
      .filter((w) => w !== '');
    const row: Row = { command: words[0] ?? '', flags: [], args: [] };
    for (let i = 1; i < words.length; i++) {
      const w = words[i] ?? '';
      if (w.startsWith('--')) {
        const next = words[i + 1];
        const value = next !== undefined && !next.startsWith('--') ? next : null;
        row.flags.push({ flag: w, value });
        if (value !== null) i++;
      } else row.args.push(w);
    }
    return row;
  });
}

/** The program as the CLI builds it (main.ts registers the same commands). */
function program(): Command {
  const p = new Command('kvscope');
  for (const register of [
    registerCapture,
    registerAnalyze,
    registerSim,
    registerServe,
    registerDesktop,
    registerCollect,
  ]) {
    register(p);
  }
  return p;
}

/** The options `kvscope CMD --help` prints, --help itself left out. */
function helpOptions(cmd: Command): Option[] {
  return cmd
    .createHelp()
    .visibleOptions(cmd)
    .filter((o) => o.long !== '--help');
}

const rows = readmeRows();
const commands = program().commands;

describe("README's command reference", () => {
  it('has one row for each command kvscope --help lists', () => {
    expect(rows.map((r) => r.command).sort()).toEqual(commands.map((c) => c.name()).sort());
  });

  for (const cmd of commands) {
    describe(`kvscope ${cmd.name()}`, () => {
      const row = (): Row => {
        const r = rows.find((x) => x.command === cmd.name());
        if (!r) throw new Error(`README's command table has no row for kvscope ${cmd.name()}`);
        return r;
      };

      it('names exactly the flags its --help shows', () => {
        const readme = row()
          .flags.map((f) => f.flag)
          .sort();
        expect([...new Set(readme)]).toEqual(readme);
        expect(readme).toEqual(
          helpOptions(cmd)
            .map((o) => o.long ?? o.flags)
            .sort(),
        );
      });

      it('writes a value after each flag that takes one, none after a switch', () => {
        const takes = new Map(helpOptions(cmd).map((o) => [o.long, o.required || o.optional]));
        for (const f of row().flags) {
          expect({ flag: f.flag, takesValue: f.value !== null }).toEqual({
            flag: f.flag,
            takesValue: takes.get(f.flag),
          });
        }
      });

      it('writes out a default as the command has it', () => {
        const defaults = new Map(helpOptions(cmd).map((o) => [o.long, o.defaultValue]));
        // A number or an address is a default (`--port 8080`); a capitalised word is a placeholder.
        for (const f of row().flags.filter((x) => /^[\d.]+$/.test(x.value ?? ''))) {
          expect({ flag: f.flag, value: f.value }).toEqual({
            flag: f.flag,
            value: String(defaults.get(f.flag)),
          });
        }
      });

      it('names its arguments', () => {
        const args = cmd
          .createHelp()
          .visibleArguments(cmd)
          .map((a) => a.name().toUpperCase());
        expect(row().args).toEqual(args);
      });
    });
  }
});
