// A minimal UpdateFrame for tests of what carries frames (the pump, the renderer's store).
import type { Kpis, UpdateFrame } from '../../shared/api-types';

/** Frame `n` of a live view with zero KPIs; `frame` and `kpis` override fields. */
export function updateFrame(
  n: number,
  frame: Partial<UpdateFrame> = {},
  kpis: Partial<Kpis> = {},
): UpdateFrame {
  return {
    n,
    epoch: 1,
    view: {
      kind: 'live',
      title: 'live',
      unsaved: false,
      demo: false,
      progress: null,
      problems: [],
      sources: [],
      removedSources: [],
    },
    nowTs: null,
    kpis: {
      storedBlocks: 0,
      removedBlocks: 0,
      residentBlocks: 0,
      staleResidentBlocks: 0,
      storedPerSec: 0,
      removedPerSec: 0,
      events: 0,
      clears: 0,
      gaps: 0,
      lost: 0,
      recovered: 0,
      undecoded: 0,
      ...kpis,
    },
    sources: [],
    media: [],
    recording: {
      lagSeconds: 0,
      behindRecords: 0,
      droppedRecords: 0,
      bytes: 0,
      behind: false,
      error: null,
    },
    ...frame,
  };
}
