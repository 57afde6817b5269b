import { describe, expect, it } from 'vitest';
import { hashSearch } from '../../renderer/lib/hash-search';
import { MAX_SEARCH_CHARS } from '../../shared/limits';
import { ARG_SCHEMAS } from '../../shared/schemas';

describe('a hash search box', () => {
  it('asks for its text trimmed, up to the longest the service takes', () => {
    expect(hashSearch('  123  ')).toEqual({ hash: '123', refused: null });
    const longest = 'a'.repeat(MAX_SEARCH_CHARS);
    expect(hashSearch(longest)).toEqual({ hash: longest, refused: null });
    expect(ARG_SCHEMAS['model:search'].safeParse([longest]).success).toBe(true);
  });

  it('says in words why a text too long to be a hash was not searched, and asks for nothing', () => {
    const text = '9'.repeat(300);
    expect(ARG_SCHEMAS['model:search'].safeParse([text]).success).toBe(false);
    expect(hashSearch(text)).toEqual({
      hash: '',
      refused:
        'A hash has at most 200 characters (a 64-byte digest is 128 in hex); this text has 300, so it was not searched.',
    });
  });
});
