// Source ids → the names the user gave them, for every place a source is shown. Pure.

import type { SourceStatus } from '../../shared/api-types';
import { distinctLabels, labelsById } from '../../shared/source-labels';

export type SourceNames = ReadonlyMap<string, string>;

/** The id → name map of the frame's sources (ids without a name are left out). */
export function sourceNameMap(sources: readonly Pick<SourceStatus, 'id' | 'name'>[]): SourceNames {
  const m = new Map<string, string>();
  for (const s of sources) if (s.name.trim()) m.set(s.id, s.name);
  return m;
}

/**
 * The names as the views show them: a name two sources share gets each one's id beside it
 * ("gpu (8acbf317)"), in every place at once (legends, lists, cards), not only in the filters.
 */
export function distinctNames(names: SourceNames): SourceNames {
  return labelsById([...names.keys()], (id) => names.get(id) ?? id);
}

/** A source's name, or its id when unknown. */
export function sourceLabel(names: SourceNames, id: string): string {
  return names.get(id) ?? id;
}

/** A hover title: the name with the id after it ("e2e-engine (5f2c7c10)"), or just the id. */
export function sourceTitle(names: SourceNames, id: string): string {
  const name = names.get(id);
  if (!name || name === id) return id;
  // A shared name carries the id already (distinctNames).
  return name.endsWith(` (${id})`) ? name : `${name} (${id})`;
}

/** Several sources' names, comma-separated. */
export function sourceLabels(names: SourceNames, ids: readonly string[]): string {
  return ids.map((id) => sourceLabel(names, id)).join(', ');
}

/** Filter options, id as value and name as label; a name used twice gets its id added. */
export function sourceOptions(
  names: SourceNames,
  ids: readonly string[],
): { value: string; label: string }[] {
  const labels = distinctLabels(ids, (id) => sourceLabel(names, id));
  return ids.map((id, i) => ({ value: id, label: labels[i] ?? id }));
}

/**
 * The labels of a view's sources, present and removed together: a removed source that shares a
 * name with another (a connection removed, then added again under its name) keeps its id beside.
 */
export function viewSourceLabels(
  present: readonly { id: string; name: string }[],
  removed: readonly { id: string; name: string }[],
): Map<string, string> {
  const all = [...present, ...removed];
  const names = new Map(all.map((s) => [s.id, s.name.trim()]));
  return labelsById(
    all.map((s) => s.id),
    (id) => names.get(id) ?? id,
  );
}
