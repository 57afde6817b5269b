// Which notices are kept and which show. Several can, because one piece of news must not wipe out
// another: a live source's notice used to replace a file's refusal before the reader could see it.
// A notice replaces only one of the same text (it starts over as the newest) or of the same topic
// (the sources' news is one topic: a restart's notice takes the place of the hang-up's before it).
// The newest MAX_SHOWN show; older ones wait behind them and show again as those are dismissed or
// go, so no error is lost to later news. Past MAX_KEPT, the oldest info goes first.

export interface Notice {
  id: number;
  text: string;
  kind: 'info' | 'error';
  /** Notices of one topic are kept one at a time, the newest. */
  topic?: string;
}

/** Notices on screen at most. */
export const MAX_SHOWN = 3;
/** Notices kept at most, shown or waiting. */
export const MAX_KEPT = 20;

/** The notices kept once next is added to kept (oldest first). */
export function withNotice(kept: readonly Notice[], next: Notice): Notice[] {
  const replaced = (n: Notice): boolean =>
    n.text === next.text || (next.topic !== undefined && n.topic === next.topic);
  const list = [...kept.filter((n) => !replaced(n)), next];
  while (list.length > MAX_KEPT) {
    const info = list.findIndex((n) => n.kind === 'info');
    list.splice(info === -1 ? 0 : info, 1);
  }
  return list;
}

/** The notices on screen (the newest MAX_SHOWN, oldest first) and how many wait behind them. */
export function shownNotices(kept: readonly Notice[]): { shown: Notice[]; waiting: number } {
  const waiting = Math.max(0, kept.length - MAX_SHOWN);
  return { shown: kept.slice(waiting), waiting };
}
