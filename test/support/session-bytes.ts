// A session file's bytes for a test: the header (these sources) and one line per event record,
// gzipped, as a recording writes them.
import { gzipSync } from 'node:zlib';
import type { EventRecord } from '../../shared/events';
import { encodeRecord, makeHeader, type SessionSource } from '../../electron/session/format';

/** The gzip bytes of a session of `events` from `sources` (started 2026-01-01). */
export function sessionBytes(sources: SessionSource[], events: EventRecord[]): Buffer {
  const header = makeHeader('test', new Date(Date.UTC(2026, 0, 1)), sources);
  const lines = [JSON.stringify(header), ...events.map((rec) => encodeRecord({ k: 'event', rec }))];
  return gzipSync(`${lines.join('\n')}\n`);
}
