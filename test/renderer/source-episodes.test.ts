import { describe, expect, it } from 'vitest';
import type { SourceCounters, SourceStatus } from '../../shared/api-types';
import { sourceEpisodeNotices } from '../../renderer/lib/source-episodes';

const counters: SourceCounters = {
  messages: 10,
  events: 30,
  bytes: 1000,
  gaps: 0,
  recovered: 0,
  lost: 0,
  duplicates: 0,
  resets: 0,
  undecoded: 0,
  eventErrors: 0,
  oversized: 0,
  replayRejected: 0,
};

type S = Pick<SourceStatus, 'id' | 'name' | 'state' | 'counters' | 'ageSec' | 'subscription'>;
const src = (over: Partial<S> = {}): S => ({
  id: 'a',
  name: 'engine-a',
  state: 'connected',
  counters,
  ageSec: 0.2,
  ...over,
});
const byId = (...s: S[]) => new Map(s.map((x) => [x.id, x]));

describe('source episode notices', () => {
  it('tells an edit of a connected connection from a hang-up and a restart of the engine', () => {
    const before = src({ subscription: 1 });
    // Edited onto another stream: a new subscription, connecting, its old state gone (a reset).
    const edited = src({
      subscription: 2,
      state: 'connecting',
      counters: { ...counters, resets: 1 },
    });
    expect(sourceEpisodeNotices(byId(before), [edited])).toEqual([
      { text: 'engine-a subscribed again with its new settings.', kind: 'info' },
    ]);
    // Connected again by the user after a disconnect: nothing to tell.
    const closed = src({ subscription: 1, state: 'closed' });
    expect(sourceEpisodeNotices(byId(closed), [src({ subscription: 2 })])).toEqual([]);
    // The same subscription going back to connecting is the engine's hang-up.
    expect(
      sourceEpisodeNotices(byId(before), [src({ subscription: 1, state: 'connecting' })]),
    ).toEqual([
      {
        text: 'engine-a hung up: the engine closed the connection (stopped, killed or restarting).',
        kind: 'error',
      },
    ]);
  });

  it('says a stall once, when it starts, with its age', () => {
    const stalled = src({ state: 'stalled', ageSec: 12.4 });
    expect(sourceEpisodeNotices(byId(src()), [stalled])).toEqual([
      { text: 'engine-a stalled: no messages for 12 s.', kind: 'error' },
    ]);
    expect(sourceEpisodeNotices(byId(stalled), [src({ state: 'stalled', ageSec: 20 })])).toEqual(
      [],
    );
  });

  it('says a hang-up once, when the engine closes the connection', () => {
    const gone = src({ state: 'connecting' });
    expect(sourceEpisodeNotices(byId(src()), [gone])).toEqual([
      {
        text: 'engine-a hung up: the engine closed the connection (stopped, killed or restarting).',
        kind: 'error',
      },
    ]);
    expect(sourceEpisodeNotices(byId(gone), [gone])).toEqual([]);
    // A source that never got data and is still connecting did not hang up.
    expect(sourceEpisodeNotices(byId(src({ state: 'waiting' })), [gone])).toEqual([]);
  });

  it('says a restart and a loss as they are counted, by the source name', () => {
    const next = src({ counters: { ...counters, resets: 1, lost: 1200 } });
    const notices = sourceEpisodeNotices(byId(src()), [next]);
    expect(notices.map((n) => n.text)).toEqual([
      'engine-a restarted (a new engine process): its resident blocks start again from empty.',
      'engine-a lost 1,200 batches: missed, and not recovered over replay (none is set, or the engine no longer held them).',
    ]);
  });

  it('says nothing for a new source, a user disconnect, or an unchanged one', () => {
    expect(sourceEpisodeNotices(new Map(), [src({ state: 'stalled' })])).toEqual([]);
    expect(sourceEpisodeNotices(byId(src()), [src({ state: 'closed' })])).toEqual([]);
    expect(sourceEpisodeNotices(byId(src()), [src()])).toEqual([]);
  });
});
