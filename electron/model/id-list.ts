// A doubly linked list of ids threaded through two columns of the node table (an id is in a list
// at most once): the forest's evicted list and its leaves. The columns are passed on each call
// because the table replaces them when it grows.

import { NONE } from './node-table';

/** The two ends of a list (NONE when it is empty). */
export interface IdListEnds {
  head: number;
  tail: number;
}

/** An empty list. */
export function emptyIdList(): IdListEnds {
  return { head: NONE, tail: NONE };
}

/** Appends id (not in the list) at the tail. */
export function appendId(prev: Int32Array, next: Int32Array, ends: IdListEnds, id: number): void {
  prev[id] = ends.tail;
  next[id] = NONE;
  if (ends.tail === NONE) ends.head = id;
  else next[ends.tail] = id;
  ends.tail = id;
}

/** Takes id (in the list) out of it. */
export function detachId(prev: Int32Array, next: Int32Array, ends: IdListEnds, id: number): void {
  const before = prev[id] as number;
  const after = next[id] as number;
  if (before === NONE) ends.head = after;
  else next[before] = after;
  if (after === NONE) ends.tail = before;
  else prev[after] = before;
}
