// Deep links: #overview, #insights, #chains (with ?hash=... opening a block's chains), #events
// (with ?at=TS showing the events before that event time), #connections. The hash is read at start
// and kept in step with the view shown. Pure.

import type { ViewName } from '../../shared/api-types';
import { MAX_ABS_TS_SEC } from '../../shared/event-bounds';

const VIEW_NAMES: readonly ViewName[] = ['overview', 'insights', 'chains', 'events', 'connections'];

export interface DeepLink {
  view: ViewName;
  /** A block hash to look up (Chains only). */
  hash?: string;
  /** An event time in seconds: the log shows the events before it (Events only). */
  at?: number;
}

/** Reads a location hash ("#chains?hash=123"); anything unknown is the Overview. */
export function parseDeepLink(locationHash: string): DeepLink {
  const [name = '', query = ''] = locationHash.replace(/^#/, '').split('?', 2);
  const view = VIEW_NAMES.find((v) => v === name) ?? 'overview';
  const params = new URLSearchParams(query);
  const hash = params.get('hash')?.trim();
  if (view === 'chains' && hash) return { view, hash };
  // An empty "at=" is no time (Number('') is 0, which showed no event at all).
  const rawAt = params.get('at')?.trim() ?? '';
  const at = rawAt === '' ? NaN : Number(rawAt);
  // A relative clock can run negative (a chart click on it writes such a link), so a time counts
  // within the event time bounds either side of zero; past them a link shows every event.
  if (view === 'events' && Number.isFinite(at) && Math.abs(at) <= MAX_ABS_TS_SEC) {
    return { view, at };
  }
  return { view };
}

/** The location hash of a link. */
export function formatDeepLink(link: DeepLink): string {
  if (link.hash) return `#${link.view}?hash=${encodeURIComponent(link.hash)}`;
  if (link.at !== undefined) return `#${link.view}?at=${link.at}`;
  return `#${link.view}`;
}
