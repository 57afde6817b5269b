// What a user should be told about a source between two frames: a stall, a hang-up, a failure, a
// restart, a loss. Said once per episode: a source that stays stalled is not announced again. Pure.

import type { SourceStatus } from '../../shared/api-types';
import { plural } from './format';

export interface EpisodeNotice {
  text: string;
  kind: 'info' | 'error';
}

type Seen = Pick<SourceStatus, 'id' | 'name' | 'state' | 'counters' | 'ageSec' | 'subscription'>;

/** Notices for what changed from `prev` (the last frame's sources by id) to `next`. */
export function sourceEpisodeNotices(
  prev: ReadonlyMap<string, Seen>,
  next: readonly Seen[],
): EpisodeNotice[] {
  const out: EpisodeNotice[] = [];
  for (const s of next) {
    const before = prev.get(s.id);
    if (!before) continue;
    if (s.subscription !== before.subscription) {
      // The user connected it again, or edited it: the engine neither hung up nor restarted.
      if (before.state !== 'closed') {
        out.push({ text: `${s.name} subscribed again with its new settings.`, kind: 'info' });
      }
      continue;
    }
    if (s.state === 'stalled' && before.state !== 'stalled') {
      const age = s.ageSec === null ? '' : ` for ${Math.round(s.ageSec)} s`;
      out.push({ text: `${s.name} stalled: no messages${age}.`, kind: 'error' });
    }
    const hungUp = s.state === 'connecting' || s.state === 'waiting';
    if (hungUp && (before.state === 'connected' || before.state === 'stalled')) {
      out.push({
        text: `${s.name} hung up: the engine closed the connection (stopped, killed or restarting).`,
        kind: 'error',
      });
    }
    if (s.state === 'error' && before.state !== 'error') {
      out.push({ text: `${s.name} failed: see its card in Connections.`, kind: 'error' });
    }
    if (s.counters.resets > before.counters.resets) {
      out.push({
        text: `${s.name} restarted (a new engine process): its resident blocks start again from empty.`,
        kind: 'info',
      });
    }
    const lost = s.counters.lost - before.counters.lost;
    if (lost > 0) {
      out.push({
        text: `${s.name} lost ${plural(lost, 'batch', 'batches')}: missed, and not recovered over replay (none is set, or the engine no longer held them).`,
        kind: 'error',
      });
    }
  }
  return out;
}
