import type { BlockHistory } from '../../shared/api-types';
import type { BlockNode } from './block-node';

/** The screen's view of one block node. */
export function blockHistory(n: BlockNode, sources: string[]): BlockHistory {
  return {
    hash: n.hash,
    parent: n.parent,
    resident: n.holders > 0,
    timesStored: n.timesStored,
    timesRemoved: n.timesRemoved,
    storedAt: [...n.storedAt],
    removedAt: [...n.removedAt],
    lastLifetimeSec: n.lastLifetime,
    medium: n.medium,
    sources,
    tokens: n.tokens,
  };
}
