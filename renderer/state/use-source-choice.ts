import { useEffect, useRef, useState } from 'react';
import { sourceLabel, type SourceNames } from '../lib/source-names';

/**
 * A view's Source filter: the chosen source id ('' for all). A source that leaves the view's
 * sources while chosen (removed, or not in a file opened) goes with its rows: the choice reads as
 * all sources from then on, and `notify` says why the rows changed (the select showed "all
 * sources" while the list stayed filtered on the source gone).
 */
export function useSourceChoice(
  ids: readonly string[] | null,
  names: SourceNames,
  notify: (text: string) => void,
): [string, (source: string) => void] {
  const [chosen, setChosen] = useState('');
  const removed = chosen !== '' && ids !== null && !ids.includes(chosen) ? chosen : null;
  // Said once per removal, however often names or notify change meanwhile.
  const told = useRef<string | null>(null);
  useEffect(() => {
    if (removed !== null && told.current !== removed)
      notify(`${sourceLabel(names, removed)} is no longer among the sources: showing all sources`);
    told.current = removed;
  }, [removed, names, notify]);
  return [removed === null ? chosen : '', setChosen];
}
