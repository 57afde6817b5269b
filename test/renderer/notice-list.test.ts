import { describe, expect, it } from 'vitest';
import { MAX_NOTICES, withNotice, type Notice } from '../../renderer/lib/notice-list';

const info = (id: number, text = `info ${id}`): Notice => ({ id, text, kind: 'info' });
const error = (id: number, text = `error ${id}`): Notice => ({ id, text, kind: 'error' });
const ids = (list: readonly Notice[]): number[] => list.map((n) => n.id);

describe('the notices shown', () => {
  it('keeps a refusal when a source has news after it', () => {
    const shown = withNotice([error(1, 'could not open junk.kvscope.jsonl.gz')], info(2));
    expect(shown.map((n) => n.text)).toEqual(['could not open junk.kvscope.jsonl.gz', 'info 2']);
  });

  it('shows the same text once, as the newer notice', () => {
    const shown = withNotice(
      [info(1, 'engine#0 restarted'), error(2)],
      info(3, 'engine#0 restarted'),
    );
    expect(ids(shown)).toEqual([2, 3]);
  });

  it('shows the newest notice of a topic in place of the one before', () => {
    const hungUp = { ...error(1, 'engine#0 hung up'), topic: 'sources' };
    const restarted = { ...info(3, 'engine#0 restarted'), topic: 'sources' };
    const shown = withNotice([hungUp, error(2, 'could not open junk')], restarted);
    expect(ids(shown)).toEqual([2, 3]);
  });

  it('drops the oldest info first past the cap, then the oldest error', () => {
    expect(MAX_NOTICES).toBe(3);
    let shown: Notice[] = [];
    for (const n of [error(1), info(2), error(3), info(4)]) shown = withNotice(shown, n);
    expect(ids(shown)).toEqual([1, 3, 4]);
    shown = withNotice(shown, info(5));
    expect(ids(shown)).toEqual([1, 3, 5]);
    shown = withNotice(shown, error(6));
    expect(ids(shown)).toEqual([1, 3, 6]);
    shown = withNotice(shown, error(7));
    expect(ids(shown)).toEqual([3, 6, 7]);
  });

  it('leaves the list it was given as it was', () => {
    const shown = [info(1), info(2), info(3)];
    withNotice(shown, info(4));
    expect(ids(shown)).toEqual([1, 2, 3]);
  });
});
