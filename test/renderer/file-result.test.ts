import { describe, expect, it } from 'vitest';
import { CANCELLED, done, failed, fileResultNotice } from '../../shared/file-result';

describe('file result notices', () => {
  it('says nothing for a cancelled dialog', () => {
    expect(fileResultNotice(CANCELLED)).toBeNull();
  });

  it('says that a load the user stopped changed nothing', () => {
    expect(fileResultNotice({ status: 'cancelled', name: 'big.gz' })).toEqual({
      text: 'Stopped opening big.gz: the view stays as it was',
      kind: 'info',
    });
  });

  it('says "Import cancelled" for an import the user stopped', () => {
    expect(fileResultNotice({ status: 'cancelled', name: 'cap.jsonl', load: 'import' })).toEqual({
      text: 'Import cancelled: cap.jsonl was not imported; the view stays as it was',
      kind: 'info',
    });
  });

  it('points to the problems panel instead of repeating a problem', () => {
    expect(fileResultNotice(done('opened', 'run.kvscope.jsonl.gz', 3))).toEqual({
      text: 'Opened run.kvscope.jsonl.gz with 3 problems: see below',
      kind: 'info',
    });
    expect(fileResultNotice(done('opened', 'a b.jsonl', 1))?.text).toBe(
      'Opened a b.jsonl with 1 problem: see below',
    );
    // serve's terminal lists nothing below: it points to the page.
    expect(fileResultNotice(done('opened', 'x.gz', 9), 'the page lists them')?.text).toBe(
      'Opened x.gz with 9 problems: the page lists them',
    );
  });

  it('names what was done and what failed, from the fields', () => {
    expect(fileResultNotice(done('saved', 'run.kvscope.jsonl.gz'))?.text).toBe(
      'Saved run.kvscope.jsonl.gz',
    );
    expect(fileResultNotice(failed('open', new Error('not gzip'), 'junk.gz'))).toEqual({
      text: 'could not open junk.gz: not gzip',
      kind: 'error',
    });
  });
});
