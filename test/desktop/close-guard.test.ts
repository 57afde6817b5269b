// Closing with an unsaved live session: the guard's three answers, a failed and a cancelled save.
import { describe, expect, it } from 'vitest';
import type { FileResult } from '../../shared/api-types';
import { CANCELLED, done, failed } from '../../shared/file-result';
import { closeGuard } from '../../electron/main/close-guard';
import { waitFor } from '../support/wait-for';

function shell(choice: number, save: () => Promise<FileResult>, unsaved = true) {
  const seen = { asked: 0, closed: 0, errors: [] as string[] };
  const mayClose = closeGuard({
    hasUnsaved: () => unsaved,
    ask: () => {
      seen.asked++;
      return choice;
    },
    saveAs: save,
    close: () => seen.closed++,
    showError: (text) => seen.errors.push(text),
    log: () => undefined,
  });
  return { mayClose, seen };
}

describe('closing the window', () => {
  it('closes at once when nothing is unsaved, without asking', () => {
    const { mayClose, seen } = shell(0, () => Promise.resolve(CANCELLED), false);
    expect(mayClose()).toBe(true);
    expect(seen.asked).toBe(0);
  });

  it('quits without saving when told so, and stays open on Cancel', () => {
    expect(shell(1, () => Promise.resolve(CANCELLED)).mayClose()).toBe(true);
    const stay = shell(2, () => Promise.resolve(CANCELLED));
    expect(stay.mayClose()).toBe(false);
    expect(stay.seen.closed).toBe(0);
  });

  it('closes after a Save As that succeeded, and lets the second close through', async () => {
    const { mayClose, seen } = shell(0, () => Promise.resolve(done('saved', 'x.gz')));
    expect(mayClose()).toBe(false);
    await waitFor(() => seen.closed === 1, 'the close after saving');
    expect(mayClose()).toBe(true);
    expect(seen.asked).toBe(1);
  });

  it('keeps the window and says nothing when the save dialog was cancelled', async () => {
    let answered = false;
    const { mayClose, seen } = shell(0, () => {
      answered = true;
      return Promise.resolve(CANCELLED);
    });
    expect(mayClose()).toBe(false);
    await waitFor(() => answered, 'the save dialog');
    await new Promise((r) => setImmediate(r));
    expect(seen.closed).toBe(0);
    expect(seen.errors).toEqual([]);
  });

  it('keeps the window and shows why when the save failed or threw', async () => {
    const refused = shell(0, () => Promise.resolve(failed('save', new Error('disk full'), 'x')));
    refused.mayClose();
    await waitFor(() => refused.seen.errors.length === 1, 'the error box');
    expect(refused.seen.errors[0]).toMatch(/disk full/);
    const threw = shell(0, () => Promise.reject(new Error('EACCES: permission denied')));
    threw.mayClose();
    await waitFor(() => threw.seen.errors.length === 1, 'the error box');
    expect(threw.seen.errors[0]).toMatch(/EACCES/);
    expect(refused.seen.closed + threw.seen.closed).toBe(0);
  });
});
