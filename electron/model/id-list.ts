// A doubly linked list of ids threaded through two columns of the node table (an id is in a list
// at most once): the forest's evicted list (prev / next) and its leaves (leafPrev / leafNext).

import { NODE_MASK, NONE, type NodeTable } from './node-table';

/** The two ends of a list (NONE when it is empty). */
export interface IdListEnds {
  head: number;
  tail: number;
}

/** An empty list. */
export function emptyIdList(): IdListEnds {
  return { head: NONE, tail: NONE };
}

/** Appends id (not in the list) at the tail; `leaves`: the leaf list, else the evicted list. */
export function appendId(t: NodeTable, leaves: boolean, ends: IdListEnds, id: number): void {
  const p = t.page(id);
  const o = id & NODE_MASK;
  (leaves ? p.leafPrev : p.prev)[o] = ends.tail;
  (leaves ? p.leafNext : p.next)[o] = NONE;
  if (ends.tail === NONE) ends.head = id;
  else {
    const q = t.page(ends.tail);
    (leaves ? q.leafNext : q.next)[ends.tail & NODE_MASK] = id;
  }
  ends.tail = id;
}

/** Takes id (in the list) out of it. */
export function detachId(t: NodeTable, leaves: boolean, ends: IdListEnds, id: number): void {
  const p = t.page(id);
  const o = id & NODE_MASK;
  const before = (leaves ? p.leafPrev : p.prev)[o] as number;
  const after = (leaves ? p.leafNext : p.next)[o] as number;
  if (before === NONE) ends.head = after;
  else {
    const q = t.page(before);
    (leaves ? q.leafNext : q.next)[before & NODE_MASK] = after;
  }
  if (after === NONE) ends.tail = before;
  else {
    const q = t.page(after);
    (leaves ? q.leafPrev : q.prev)[after & NODE_MASK] = before;
  }
}
