// Deep links: #overview, #insights, #chains (with ?hash=... opening a block's chains), #events,
// #connections. The hash is read at start and kept in step with the view shown. Pure.

import type { ViewName } from '../../shared/api-types';

const VIEW_NAMES: readonly ViewName[] = ['overview', 'insights', 'chains', 'events', 'connections'];

export interface DeepLink {
  view: ViewName;
  /** A block hash to look up (Chains only). */
  hash?: string;
}

/** Reads a location hash ("#chains?hash=123"); anything unknown is the Overview. */
export function parseDeepLink(locationHash: string): DeepLink {
  const [name = '', query = ''] = locationHash.replace(/^#/, '').split('?', 2);
  const view = VIEW_NAMES.find((v) => v === name) ?? 'overview';
  const hash = new URLSearchParams(query).get('hash')?.trim();
  return view === 'chains' && hash ? { view, hash } : { view };
}

/** The location hash of a link. */
export function formatDeepLink(link: DeepLink): string {
  return link.hash ? `#${link.view}?hash=${encodeURIComponent(link.hash)}` : `#${link.view}`;
}
