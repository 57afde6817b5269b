// The desktop's file actions against a stand-in for Electron's dialog: every path comes from a
// dialog, a cancel is a cancel (and shows nothing), a failure says why.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CANCELLED, done } from '../../shared/file-result';

const answers: { open: string[] | null; save: string | null } = { open: null, save: null };
vi.mock('electron', () => ({
  dialog: {
    showOpenDialog: () =>
      Promise.resolve({ canceled: answers.open === null, filePaths: answers.open ?? [] }),
    showSaveDialog: () =>
      Promise.resolve({ canceled: answers.save === null, filePath: answers.save ?? undefined }),
  },
}));

const { dialogFileActions } = await import('../../electron/main/dialogs');
const { reportFileResult } = await import('../../electron/main/file-report');

const dir = mkdtempSync(path.join(os.tmpdir(), 'kvscope-dialogs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calls: string[] = [];
const service = {
  openSession: (file: string, name: string) => {
    calls.push(`open ${file} as ${name}`);
    return Promise.resolve(done('opened', name));
  },
  importCapture: (file: string, name: string) => {
    calls.push(`import ${file} as ${name}`);
    return Promise.resolve(done('opened', name));
  },
  saveSession: () => Promise.reject(new Error('ENOSPC: no space left on device')),
  ratesCsv: () => 'time_s,stored_per_s\n1,2\n',
};
const files = dialogFileActions(
  {} as never,
  service as unknown as Parameters<typeof dialogFileActions>[1],
);

function reporter() {
  const seen = { errors: [] as string[], logs: [] as string[] };
  return {
    seen,
    deps: { log: (l: string) => seen.logs.push(l), showError: (t: string) => seen.errors.push(t) },
  };
}

describe('desktop file dialogs', () => {
  it('treats a cancelled open dialog as cancelled, opens nothing and shows nothing', async () => {
    answers.open = null;
    const result = await files.openSession();
    expect(result).toEqual(CANCELLED);
    expect(calls).toEqual([]);
    const r = reporter();
    await reportFileResult(Promise.resolve(result), r.deps);
    expect(r.seen.errors).toEqual([]);
  });

  it('opens the file the dialog chose, by its path, named by its base name', async () => {
    answers.open = [path.join(dir, 'run.kvscope.jsonl.gz')];
    expect(await files.openSession()).toMatchObject({
      status: 'done',
      name: 'run.kvscope.jsonl.gz',
    });
    expect(calls.at(-1)).toBe(
      `open ${path.join(dir, 'run.kvscope.jsonl.gz')} as run.kvscope.jsonl.gz`,
    );
  });

  it('treats a cancelled save dialog as cancelled', async () => {
    answers.save = null;
    expect(await files.saveSessionAs()).toEqual(CANCELLED);
    expect(await files.exportRatesCsv()).toEqual(CANCELLED);
  });

  it('reports a failed save in an error box', async () => {
    answers.save = path.join(dir, 'x.kvscope.jsonl.gz');
    const r = reporter();
    await reportFileResult(files.saveSessionAs(), r.deps);
    expect(r.seen.errors).toEqual(['ENOSPC: no space left on device']);
  });

  it('writes an export where the save dialog said', async () => {
    answers.save = path.join(dir, 'rates.csv');
    expect(await files.exportRatesCsv()).toMatchObject({ status: 'done', name: 'rates.csv' });
    expect(readFileSync(answers.save, 'utf8')).toBe('time_s,stored_per_s\n1,2\n');
  });
});
