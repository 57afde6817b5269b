import { describe, expect, it } from 'vitest';
import { CANCELLED, done, failed, fileResultNotice } from '../../shared/file-result';
import { refusalReason } from '../../shared/ws-protocol';

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

  it('says "Imported" for an imported capture, with its problems', () => {
    expect(fileResultNotice(done('imported', 'cap.jsonl', 2))?.text).toBe(
      'Imported cap.jsonl with 2 problems: listed at the top of the view',
    );
  });

  it('points to the problems panel instead of repeating a problem', () => {
    expect(fileResultNotice(done('opened', 'run.kvscope.jsonl.gz', 3))).toEqual({
      text: 'Opened run.kvscope.jsonl.gz with 3 problems: listed at the top of the view',
      kind: 'info',
    });
    expect(fileResultNotice(done('opened', 'a b.jsonl', 1))?.text).toBe(
      'Opened a b.jsonl with 1 problem: listed at the top of the view',
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

describe('an HTTP refusal body', () => {
  it('gives its reason, which the page names under the action the user asked for', () => {
    const reason = refusalReason('{"error":"this kvscope serve needs its token"}');
    expect(reason).toBe('this kvscope serve needs its token');
    expect(fileResultNotice(failed('save', reason, 'run.kvscope.jsonl.gz'))?.text).toBe(
      'could not save run.kvscope.jsonl.gz: this kvscope serve needs its token',
    );
  });

  it('is no refusal when it is not JSON or has no text reason', () => {
    expect(refusalReason('Bad Gateway')).toBeNull();
    expect(refusalReason('{"error":3}')).toBeNull();
    expect(refusalReason('null')).toBeNull();
  });
});
