// A session whose one source stores, evicts and stores again, with `lost` batches lost between
// (a gap no replay filled): its what-if's peak counts the blocks evicted in them as resident.
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { removed, stored } from '../model/helpers';

export function lostBatchesSession(lost: number): string {
  const a = { id: 'a', name: 'engine A', endpoint: 'tcp://127.0.0.1:1' };
  const t0 = 1_767_225_600;
  let seq = 0;
  const event = (rec: ReturnType<typeof stored>): string =>
    encodeRecord({ k: 'event', rec: { ...rec, seq: seq++ } });
  const lines = [JSON.stringify(makeHeader('test', new Date(t0 * 1000), [a]))];
  lines.push(event(stored('a', t0, ['11', '12', '13', '14'])));
  lines.push(event(removed('a', t0 + 1, ['11', '12'])));
  if (lost > 0) {
    lines.push(
      encodeRecord({
        k: 'gap',
        rec: { source: 'a', from: seq, to: seq + lost - 1, recovered: 0, lost, at: t0 + 2 },
      }),
    );
    seq += lost;
  }
  lines.push(event(stored('a', t0 + 3, ['11', '12'])));
  return `${lines.join('\n')}\n`;
}
