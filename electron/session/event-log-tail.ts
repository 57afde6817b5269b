// The event log of an opened session holds its newest events, as live. Keeping each event's record
// while the file is read would hold every record long enough to be promoted and then collected, a
// million times (a tenth of the open's CPU, a hundred MB of its peak): here only the newest lines
// are kept, as text, and the few that the log keeps are parsed again at the end. A line is held in
// memory only; parsing it again rebuilds its event from the known fields, as the first parse did.

import type { EventRecord } from '../../shared/events';
import { parseRecord } from './format';

/** The newest `capacity` event lines of a session read, as a ring. */
export class EventLogTail {
  private readonly lines: string[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.lines = new Array<string>(capacity);
  }

  /** An event line that was applied. */
  push(line: string): void {
    if (this.capacity === 0) return;
    this.lines[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** The events of the lines held, oldest first. */
  records(): EventRecord[] {
    const out: EventRecord[] = [];
    const start = (this.next - this.count + this.capacity) % Math.max(1, this.capacity);
    for (let i = 0; i < this.count; i += 1) {
      const line = this.lines[(start + i) % this.capacity] as string;
      // Each line parsed as an event when it was read: it does again.
      const parsed = parseRecord(JSON.parse(line) as Record<string, unknown>);
      if (typeof parsed !== 'string' && parsed.r.k === 'event') out.push(parsed.r.rec);
    }
    return out;
  }
}
