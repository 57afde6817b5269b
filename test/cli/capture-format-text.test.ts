// The readable lines of `kvscope capture` carry publisher text (media, LoRA names): a newline or
// an ANSI escape in it must not end the line, forge another event line, or reach the terminal.
import { describe, expect, it } from 'vitest';
import { eventTextLine } from '../../electron/cli/capture-format';
import type { EventRecord } from '../../shared/events';
import { stored as storedRecord } from '../model/helpers';

/** A store on `medium` under LoRA `loraName` (the model tests' record, its name set). */
function stored(medium: string, loraName: string): EventRecord {
  const r = storedRecord('capture', 100.5, ['1'], null, medium);
  if (r.event.type !== 'BlockStored') throw new Error('not a store');
  return { ...r, event: { ...r.event, lora_name: loraName } };
}

describe('capture text lines', () => {
  it("escape the control characters of a publisher's medium and LoRA name", () => {
    const forged = 'GPU\n[2] seq=1 rank=0 ts=1 AllBlocksCleared\u001b[31m';
    const line = eventTextLine(1, stored(forged, 'x\r\ny\u0000'));
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line).toContain('medium=GPU\\n[2] seq=1 rank=0 ts=1 AllBlocksCleared\\u001b[31m');
    expect(line).toContain('lora_name=x\\r\\ny\\u0000');
    const removed: EventRecord = {
      ...stored('GPU', 'l'),
      event: { type: 'BlockRemoved', block_hashes: ['1'], medium: 'CPU\u009b2J', group_idx: null },
    };
    expect(eventTextLine(2, removed)).toContain('medium=CPU\\u009b2J');
    const cleared: EventRecord = {
      ...stored('GPU', 'l'),
      event: { type: 'AllBlocksCleared', medium: 'a\u2028b' },
    };
    expect(eventTextLine(3, cleared)).toContain('medium=a\\u2028b');
  });

  it('leave printable names as they are', () => {
    expect(eventTextLine(1, stored('CPU_PINNED', 'my-lora é'))).toContain(
      'medium=CPU_PINNED lora_name=my-lora é',
    );
  });
});
