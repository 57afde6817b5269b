import { useMemo } from 'react';
import { distinctNames, type SourceNames } from '../lib/source-names';
import { useFrameState } from './frames';

/**
 * The id → label map of every source seen (removed ones stay), a shared name told apart by id;
 * stable while no name changes.
 */
export function useSourceNames(): SourceNames {
  const names = useFrameState().names;
  return useMemo(() => distinctNames(names), [names]);
}
