import type { SourceNames } from '../lib/source-names';
import { useFrameState } from './frames';

/** The id → name map of every source seen, stable while no name changes (removed ones stay). */
export function useSourceNames(): SourceNames {
  return useFrameState().names;
}
