import { useMemo } from 'react';
import { sourceNameMap, sourceNamesKey } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';
import { useFrameState } from './frames';

/** The id → name map of the latest frame's sources, stable while they do not change. */
export function useSourceNames(): SourceNames {
  const { frame } = useFrameState();
  const sources = frame?.sources ?? [];
  const key = sourceNamesKey(sources);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the ids and names only
  return useMemo(() => sourceNameMap(sources), [key]);
}
