// Which notices show. Several can, because one piece of news must not wipe out another: a live
// source's notice used to replace a file's refusal before the reader could see it. A notice
// replaces only one of the same text (its timer starts over) or of the same topic (the sources'
// news is one topic: a restart's notice takes the place of the hang-up's before it). Only the
// newest MAX_NOTICES show, the oldest info going first: an error stays while there is info to drop.

export interface Notice {
  id: number;
  text: string;
  kind: 'info' | 'error';
  /** Notices of one topic show one at a time, the newest. */
  topic?: string;
}

/** Notices on screen at most. */
export const MAX_NOTICES = 3;

/** The notices shown once next is added to shown (oldest first). */
export function withNotice(shown: readonly Notice[], next: Notice): Notice[] {
  const replaced = (n: Notice): boolean =>
    n.text === next.text || (next.topic !== undefined && n.topic === next.topic);
  const list = [...shown.filter((n) => !replaced(n)), next];
  while (list.length > MAX_NOTICES) {
    const info = list.findIndex((n) => n.kind === 'info');
    list.splice(info === -1 ? 0 : info, 1);
  }
  return list;
}
