import { describe, expect, it } from 'vitest';
import { shortNotice } from '../../renderer/lib/notice-text';

describe('short notices', () => {
  it('points to the problems panel instead of repeating a problem', () => {
    expect(shortNotice('opened run.kvscope.jsonl.gz with 3 problem(s): line 7: not JSON')).toBe(
      'opened run.kvscope.jsonl.gz with 3 problems: see below',
    );
    expect(shortNotice('opened a b.jsonl with 1 problem(s): truncated\nat byte 9')).toBe(
      'opened a b.jsonl with 1 problem: see below',
    );
  });

  it('leaves every other notice as it is', () => {
    expect(shortNotice('Saved: run.kvscope.jsonl.gz')).toBe('Saved: run.kvscope.jsonl.gz');
    expect(shortNotice('could not open junk.kvscope.jsonl.gz: not gzip')).toBe(
      'could not open junk.kvscope.jsonl.gz: not gzip',
    );
  });
});
