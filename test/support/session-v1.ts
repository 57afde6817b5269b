// Session version 1's event line, as that version wrote it (every field, defaults included): for
// the tests that version-1 files keep opening, and the open bench's size and parse comparison.

import type { EventRecord } from '../../shared/events';

/** An event line exactly as version 1 wrote it (no newline). */
export function v1EventLine(e: EventRecord): string {
  return `{"k":"event","source":${JSON.stringify(e.source)},"seq":${e.seq},"ts":${JSON.stringify(e.ts)},"dp_rank":${JSON.stringify(e.dp_rank)},"idx":${e.idx},"event":${JSON.stringify(e.event)}}`;
}
