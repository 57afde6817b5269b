import { describe, expect, it } from 'vitest';
import { formatDeepLink, parseDeepLink } from '../../renderer/lib/deep-link';

describe('deep links', () => {
  it('opens the view a link names, and a block hash in Chains', () => {
    expect(parseDeepLink('#insights')).toEqual({ view: 'insights' });
    expect(parseDeepLink('#chains?hash=18446744073709551615')).toEqual({
      view: 'chains',
      hash: '18446744073709551615',
    });
  });

  it('falls back to the Overview for an unknown or empty link, and ignores a hash elsewhere', () => {
    expect(parseDeepLink('')).toEqual({ view: 'overview' });
    expect(parseDeepLink('#nope')).toEqual({ view: 'overview' });
    expect(parseDeepLink('#events?hash=1')).toEqual({ view: 'events' });
  });

  it('opens the events before a time (negative ones of a relative clock too), ignoring one out of bounds', () => {
    expect(parseDeepLink('#events?at=12.5')).toEqual({ view: 'events', at: 12.5 });
    expect(parseDeepLink('#events?at=0')).toEqual({ view: 'events', at: 0 });
    expect(parseDeepLink('#events?at=-27')).toEqual({ view: 'events', at: -27 });
    expect(parseDeepLink(formatDeepLink({ view: 'events', at: -27.5 }))).toEqual({
      view: 'events',
      at: -27.5,
    });
    expect(parseDeepLink('#events?at=-2e11')).toEqual({ view: 'events' });
    expect(parseDeepLink('#events?at=2e11')).toEqual({ view: 'events' });
    expect(parseDeepLink('#events?at=')).toEqual({ view: 'events' });
    expect(parseDeepLink('#events?at=%20')).toEqual({ view: 'events' });
  });

  it('writes links that read back the same', () => {
    const link = { view: 'chains' as const, hash: 'ab cd' };
    expect(parseDeepLink(formatDeepLink(link))).toEqual(link);
  });
});
