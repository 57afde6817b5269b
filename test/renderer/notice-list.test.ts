import { describe, expect, it } from 'vitest';
import {
  MAX_KEPT,
  MAX_SHOWN,
  shownNotices,
  withNotice,
  type Notice,
} from '../../renderer/lib/notice-list';

const info = (id: number, text = `info ${id}`): Notice => ({ id, text, kind: 'info' });
const error = (id: number, text = `error ${id}`): Notice => ({ id, text, kind: 'error' });
const ids = (list: readonly Notice[]): number[] => list.map((n) => n.id);
const add = (...notices: Notice[]): Notice[] => notices.reduce(withNotice, [] as Notice[]);

describe('the notices kept and shown', () => {
  it('keeps a refusal when a source has news after it', () => {
    const kept = withNotice([error(1, 'could not open junk.kvscope.jsonl.gz')], info(2));
    expect(kept.map((n) => n.text)).toEqual(['could not open junk.kvscope.jsonl.gz', 'info 2']);
  });

  it('keeps the same text once, as the newer notice', () => {
    const kept = add(info(1, 'engine#0 restarted'), error(2), info(3, 'engine#0 restarted'));
    expect(ids(kept)).toEqual([2, 3]);
  });

  it('keeps the newest notice of a topic in place of the one before', () => {
    const hungUp = { ...error(1, 'engine#0 hung up'), topic: 'sources' };
    const restarted = { ...info(3, 'engine#0 restarted'), topic: 'sources' };
    expect(ids(add(hungUp, error(2, 'could not open junk'), restarted))).toEqual([2, 3]);
  });

  it('shows the newest, and the older ones again as those go: no error is lost to later news', () => {
    expect(MAX_SHOWN).toBe(3);
    // Three files refused, then a source hangs up and comes back, then a download.
    const sources = { topic: 'sources' };
    let kept = add(error(1), error(2), error(3), { ...error(4), ...sources });
    expect(shownNotices(kept)).toEqual({ shown: kept.slice(1), waiting: 1 });
    kept = withNotice(kept, { ...info(5), ...sources });
    kept = withNotice(kept, info(6));
    // The download's notice shows at once, though every other one is an error.
    expect(ids(shownNotices(kept).shown)).toEqual([3, 5, 6]);
    expect(shownNotices(kept).waiting).toBe(2);
    // The two infos go (their time is up): the first refusal shows again.
    kept = kept.filter((n) => n.kind === 'error');
    expect(shownNotices(kept)).toEqual({ shown: [error(1), error(2), error(3)], waiting: 0 });
  });

  it('keeps at most MAX_KEPT, dropping the oldest info first, then the oldest error', () => {
    let kept: Notice[] = [error(0), info(1)];
    for (let id = 2; id <= MAX_KEPT; id++) kept = withNotice(kept, error(id));
    expect(kept).toHaveLength(MAX_KEPT);
    expect(ids(kept).slice(0, 2)).toEqual([0, 2]);
    kept = withNotice(kept, error(100));
    expect(ids(kept).slice(0, 2)).toEqual([2, 3]);
  });

  it('leaves the list it was given as it was', () => {
    const kept = [info(1), info(2), info(3)];
    withNotice(kept, info(4));
    expect(ids(kept)).toEqual([1, 2, 3]);
  });
});
