// An event's line, the seam between the session format and the model's event ring: the live path
// encodes each event once and hands the line to both the recording and the ring, and an opened
// session hands the ring the lines it read. The ring reads a line back with the session reader, so
// it rebuilds the event from its known fields only, as the first read did: nothing else a file's
// line might carry (token ids, say) reaches the screen.

import type { EventRecord, HashTexts } from '../../shared/events';
import { encodeEventLine } from './event-line-encoder';
import { parseRecord } from './format';

export { EventLines } from './event-line-encoder';

/** An event as its session line (no newline), as encodeRecord writes it. */
export function eventLine(rec: EventRecord): string {
  return encodeEventLine(rec);
}

/** The event of a line that was read (or written) as one; throws if it is not one. */
export function readEventLine(line: string): EventRecord<HashTexts> {
  // Its own line (or one a file's read already checked): read back without the file's checks.
  const parsed = parseRecord(JSON.parse(line) as Record<string, unknown>, false);
  if (typeof parsed === 'string' || !('r' in parsed) || parsed.r.k !== 'event') {
    const what =
      typeof parsed === 'string' ? parsed : 'r' in parsed ? parsed.r.k : 'seq out of reach';
    throw new Error(`an event line no longer reads as an event (${what}): please report this`);
  }
  return parsed.r.rec;
}
